-- Alerts (issue 14): rules an organization defines, and the instances the
-- processors' evaluation opens from them.
--
-- alert_rules: one row per rule. model_id is NULL for a rule over every
-- model of the organization. conditions and notification_channels are JSON
-- documents stored as TEXT.
--
-- alert_instances: one row per alert raised. A rule, model and condition
-- set (condition_key, a digest of the conditions) has at most one instance
-- that is not resolved: the partial unique index is what keeps two processor
-- replicas that evaluate the same window from opening two. Instances outlive
-- their rule (rule_id is not a foreign key: deleting a rule resolves its
-- open instances and keeps them for the statistics); they go with their
-- model. history is the JSON array of every move (action, from, to, user,
-- time).

CREATE TABLE alert_rules (
    id                    TEXT PRIMARY KEY,
    org_id                TEXT NOT NULL,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL,
    alert_type            TEXT NOT NULL,
    severity              TEXT NOT NULL,
    model_id              TEXT REFERENCES models (id) ON DELETE CASCADE,
    conditions            TEXT NOT NULL,
    notification_channels TEXT NOT NULL,
    enabled               BOOLEAN NOT NULL,
    cooldown_minutes      BIGINT NOT NULL,
    created_by            TEXT NOT NULL,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
CREATE INDEX alert_rules_org ON alert_rules (org_id, created_at);
CREATE INDEX alert_rules_model ON alert_rules (model_id);
CREATE INDEX alert_rules_enabled ON alert_rules (enabled);

CREATE TABLE alert_instances (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL,
    rule_id           TEXT NOT NULL,
    model_id          TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    condition_key     TEXT NOT NULL,
    rule_name         TEXT NOT NULL,
    alert_type        TEXT NOT NULL,
    severity          TEXT NOT NULL,
    status            TEXT NOT NULL,
    observations      TEXT NOT NULL,
    hold_count        BIGINT NOT NULL,
    window_end        BIGINT NOT NULL,
    triggered_at      BIGINT NOT NULL,
    last_triggered_at BIGINT NOT NULL,
    acknowledged_at   BIGINT,
    acknowledged_by   TEXT NOT NULL,
    snoozed_until     BIGINT,
    resolved_at       BIGINT,
    resolved_by       TEXT NOT NULL,
    resolution        TEXT NOT NULL,
    history           TEXT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE UNIQUE INDEX alert_instances_one_open ON alert_instances (rule_id, model_id, condition_key) WHERE status <> 'resolved';
CREATE INDEX alert_instances_org ON alert_instances (org_id, triggered_at);
CREATE INDEX alert_instances_rule ON alert_instances (rule_id, model_id, resolved_at);
