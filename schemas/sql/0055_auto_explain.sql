-- Auto-explain on the stream (issue 16 point 4).
--
-- origin says who asked for an explanation: 'request' (POST
-- /explanations/generate) or 'auto' (the processor role's auto-explainer,
-- which explains a sampled share of a model's logged predictions). At most
-- one auto explanation exists per logged prediction: two processor
-- replicas, or a replay of the event log, insert it once.
ALTER TABLE explanations ADD COLUMN origin TEXT NOT NULL DEFAULT 'request';

CREATE UNIQUE INDEX explanations_auto ON explanations (org_id, model_id, prediction_id) WHERE origin = 'auto';

-- The explained share, counted per model over a window: explained
-- predictions come from this table, logged ones from the analytical
-- rollups.
CREATE INDEX explanations_explained ON explanations (org_id, model_id, status, created_at) WHERE prediction_id <> '';

-- The share of a model's logged predictions auto_explain samples (0-1);
-- NULL takes the processor role's default (VIGIL_AUTO_EXPLAIN_RATE).
ALTER TABLE explanation_configs ADD COLUMN auto_explain_rate DOUBLE PRECISION;

-- explained_predictions_ratio of the trust score, one row per model:
-- explained (distinct logged predictions with a completed explanation)
-- over logged (the model's predictions in the analytical rollups), both
-- over the window [window_start, window_end), kept by the processor
-- role's auto-explainer. The trust score reads ratio; a change of it
-- takes a trust snapshot in the same transaction. Times are Unix
-- microseconds.
CREATE TABLE explanation_coverage (
    model_id     TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id       TEXT NOT NULL,
    explained    BIGINT NOT NULL,
    logged       BIGINT NOT NULL,
    ratio        DOUBLE PRECISION NOT NULL,
    window_start BIGINT NOT NULL,
    window_end   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
