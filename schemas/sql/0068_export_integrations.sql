-- Delivery integrations of exports (/export/integrations, issue 17 point
-- 6): type is email, webhook, s3, sftp or api; settings a JSON object of
-- the type's settings in clear; secrets the type's credentials sealed
-- with the master key (platform/secretbox, label per organization), ''
-- when it has none; masks a JSON object of each secret's masked form,
-- shown in answers. Times are Unix microseconds.

CREATE TABLE export_integrations (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    name       TEXT NOT NULL,
    type       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    secrets    TEXT NOT NULL,
    masks      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX export_integrations_by_org ON export_integrations (org_id, created_at);
