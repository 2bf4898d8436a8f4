-- Explanation jobs (POST /explanations/generate, issue 16): one row per
-- requested explanation, in the model's organization. method is the name
-- asked for (shap, kernel_shap, lime); status is pending, then completed
-- or failed (error says why). request is JSON (instance and background
-- rows), result JSON (algorithm, exactness, base value, feature weights)
-- once completed. A pending row is work still owed: the API role's runner
-- picks pending rows up, oldest first, at start and while it runs, so a
-- job outlives a restart. Times are Unix microseconds.

CREATE TABLE explanations (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    model_id     TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    method       TEXT NOT NULL,
    status       TEXT NOT NULL,
    request      TEXT NOT NULL,
    result       TEXT,
    error        TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    completed_at BIGINT
);

CREATE INDEX explanations_by_model ON explanations (org_id, model_id, created_at);
CREATE INDEX explanations_pending ON explanations (status, created_at);
