-- Fairness audits (POST /bias/audit): one row per audit, in the model's
-- organization. request is the request summary (no data arrays) and result
-- the completed audit's outcome, both JSON stored as TEXT. updated_at is
-- also the heartbeat of the process running a pending or running audit.

CREATE TABLE bias_audits (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    model_id     TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    status       TEXT NOT NULL,
    request      TEXT NOT NULL,
    result       TEXT,
    error        TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    completed_at BIGINT
);
CREATE INDEX bias_audits_org ON bias_audits (org_id, created_at);
CREATE INDEX bias_audits_model ON bias_audits (model_id);
CREATE INDEX bias_audits_unfinished ON bias_audits (status, updated_at);
