-- Alert deliveries (issue 14): one row per alert event and channel of its
-- rule, written when the evaluation opens or reopens an alert, and worked
-- off by the processors' dispatcher: pending until delivered or out of
-- attempts (failed). next_attempt_at is when the row is next due; a
-- dispatcher claims a due row by moving it forward (its lease), so two
-- replicas never send the same attempt. attempts is the JSON array of every
-- attempt (time, outcome, HTTP status or error, duration).

CREATE TABLE alert_deliveries (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    alert_id        TEXT NOT NULL REFERENCES alert_instances (id) ON DELETE CASCADE,
    rule_id         TEXT NOT NULL,
    event           TEXT NOT NULL,
    channel_index   BIGINT NOT NULL,
    channel_type    TEXT NOT NULL,
    target          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        TEXT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);
CREATE INDEX alert_deliveries_alert ON alert_deliveries (org_id, alert_id, created_at);
