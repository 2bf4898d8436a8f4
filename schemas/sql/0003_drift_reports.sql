-- Drift reports: one per scheduled detection run and drift type, in the
-- model's organization. Times are Unix microseconds; the reference and the
-- per-feature results are JSON documents stored as TEXT.

CREATE TABLE drift_reports (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL,
    model_id            TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    drift_type          TEXT NOT NULL,
    window_start        BIGINT NOT NULL,
    window_end          BIGINT NOT NULL,
    reference           TEXT NOT NULL,
    drift_detected      BOOLEAN NOT NULL,
    overall_drift_score DOUBLE PRECISION NOT NULL,
    severity            TEXT NOT NULL,
    features            TEXT NOT NULL,
    skipped_features    TEXT NOT NULL,
    problems            TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    -- A report at high severity owes a governance event to the log until
    -- the scheduler has appended it (an outbox: a failed append is retried
    -- on the next tick).
    governance_pending  BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX drift_reports_model ON drift_reports (org_id, model_id, created_at);
-- One report per run: a model's drift type over one window. Processor
-- replicas that run the same schedule race for it; the others' insert is
-- a conflict, and they write nothing more.
CREATE UNIQUE INDEX drift_reports_run ON drift_reports (org_id, model_id, drift_type, window_end);
