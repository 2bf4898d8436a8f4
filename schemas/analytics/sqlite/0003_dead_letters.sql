-- Events the store refused for good (processors.DeadLetter), set aside so
-- that the log keeps moving: one row per (organization, kind, model,
-- event id), the event as JSON, the refusal's reason, failed_at in Unix
-- microseconds.
CREATE TABLE dead_letters (
    org_id    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    model_id  TEXT NOT NULL,
    event_id  TEXT NOT NULL,
    event     TEXT NOT NULL,
    reason    TEXT NOT NULL,
    failed_at BIGINT NOT NULL,
    PRIMARY KEY (org_id, kind, model_id, event_id)
) WITHOUT ROWID;
CREATE INDEX dead_letters_by_time ON dead_letters (org_id, failed_at);
