-- Export configurations (issue 17, /export/configs): how a report is
-- produced and delivered. name; settings, a JSON object of the template
-- id, model ids, format, date range rule (with start and end for a
-- custom one), sections overriding the template's (null: the
-- template's) and the deliveries. Times are Unix microseconds.

CREATE TABLE export_configs (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    name       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX export_configs_by_org ON export_configs (org_id, created_at);
