-- Scheduled reports (/export/scheduled-reports, issue 17 point 5): a
-- template rendered as format over model_ids (JSON array) covering the
-- period_days whole days before each due time of cron_expression (5
-- standard fields, UTC); recipients a JSON array of e-mail addresses;
-- integration_ids a JSON array of the delivery integrations each export goes to.
-- next_run_at is the next due time owed: a replica fires a schedule by a
-- compare-and-swap on it, and records the run under the unique key
-- (schedule_id, due_at), in the transaction that stores the export job,
-- so that each due time is fired once across replicas. Times are Unix
-- microseconds.

CREATE TABLE export_schedules (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    name            TEXT NOT NULL,
    template_id     TEXT NOT NULL,
    format          TEXT NOT NULL,
    cron_expression TEXT NOT NULL,
    recipients      TEXT NOT NULL,
    model_ids       TEXT NOT NULL,
    integration_ids TEXT NOT NULL,
    period_days     INTEGER NOT NULL,
    enabled         BOOLEAN NOT NULL,
    next_run_at     BIGINT NOT NULL,
    last_run_at     BIGINT,
    created_by      TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE INDEX export_schedules_by_org ON export_schedules (org_id, created_at);
CREATE INDEX export_schedules_due ON export_schedules (enabled, next_run_at);

-- One row per firing: trigger is schedule (due_at the cron's due time) or
-- manual (due_at the time it was asked for); export_id the job asked for,
-- '' with error saying why when none could be.
CREATE TABLE export_schedule_runs (
    schedule_id TEXT NOT NULL,
    due_at      BIGINT NOT NULL,
    org_id      TEXT NOT NULL,
    run_trigger TEXT NOT NULL,
    export_id   TEXT NOT NULL,
    error       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (schedule_id, due_at)
);
