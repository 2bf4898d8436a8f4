-- Served models for explanations (PUT /models/{model_id}/serving, issue
-- 16): the endpoint Kernel SHAP and LIME call when the model has no
-- artifact, one per model in the model's organization. spec is JSON
-- (protocol's model_name, features, output_index, timeout_ms, max_batch,
-- request_budget, header_names); headers is the request headers' JSON
-- sealed by secretbox ('' for none), never stored in clear. updated_at is
-- Unix microseconds.

CREATE TABLE model_servings (
    model_id   TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id     TEXT NOT NULL,
    protocol   TEXT NOT NULL,
    url        TEXT NOT NULL,
    spec       TEXT NOT NULL,
    headers    TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
