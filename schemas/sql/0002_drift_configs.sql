-- Drift configuration: one per model, in the model's organization. The five
-- parts of the configuration are JSON documents stored as TEXT.

CREATE TABLE drift_configs (
    model_id             TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id               TEXT NOT NULL,
    feature_configs      TEXT NOT NULL,
    concept_drift_config TEXT NOT NULL,
    alert_config         TEXT NOT NULL,
    schedule_config      TEXT NOT NULL,
    threshold_config     TEXT NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX drift_configs_org ON drift_configs (org_id);
