-- The code-host connection (integrations/codehost): connections with their
-- access token sealed (secretbox, AES-256-GCM under the master key; never
-- plaintext), tracked repositories with their webhook secret sealed the
-- same way, and the record of event deliveries: one row per repository and
-- delivery id, so that a delivery sent twice is processed once, keeping
-- the raw payload for processing.

CREATE TABLE codehost_connections (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    auth_type    TEXT NOT NULL,
    status       TEXT NOT NULL,
    username     TEXT NOT NULL,
    email        TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    sealed_token TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX codehost_connections_org ON codehost_connections (org_id, created_at);

CREATE TABLE codehost_repositories (
    id                      TEXT PRIMARY KEY,
    org_id                  TEXT NOT NULL,
    connection_id           TEXT NOT NULL REFERENCES codehost_connections (id) ON DELETE CASCADE,
    owner                   TEXT NOT NULL,
    name                    TEXT NOT NULL,
    full_name               TEXT NOT NULL,
    default_branch          TEXT NOT NULL,
    is_private              BOOLEAN NOT NULL,
    tracked_branches        TEXT NOT NULL,
    webhook_status          TEXT NOT NULL,
    sealed_webhook_secret   TEXT NOT NULL,
    total_commits_processed BIGINT NOT NULL,
    total_models_registered BIGINT NOT NULL,
    created_at              BIGINT NOT NULL,
    UNIQUE (org_id, full_name)
);

CREATE TABLE codehost_deliveries (
    repository_id TEXT NOT NULL REFERENCES codehost_repositories (id) ON DELETE CASCADE,
    delivery_id   TEXT NOT NULL,
    org_id        TEXT NOT NULL,
    event         TEXT NOT NULL,
    payload       TEXT NOT NULL,
    status        TEXT NOT NULL,
    received_at   BIGINT NOT NULL,
    PRIMARY KEY (repository_id, delivery_id)
);
CREATE INDEX codehost_deliveries_status ON codehost_deliveries (status, received_at);
