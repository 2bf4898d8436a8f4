-- Uploaded model artifacts for explanations (PUT /models/{model_id}/artifact,
-- issue 16): one per model, in the model's organization; a new upload
-- replaces it. spec is JSON (features, coefficients, intercept, link and
-- the parsed model's figures: num_features, num_trees, max_depth); content
-- is a tree ensemble's file as uploaded (XGBoost JSON, LightGBM text, the
-- scikit-learn export), '' for a linear model. uploaded_at is Unix
-- microseconds.

CREATE TABLE model_artifacts (
    model_id    TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    spec        TEXT NOT NULL,
    content     TEXT NOT NULL,
    uploaded_at BIGINT NOT NULL
);
