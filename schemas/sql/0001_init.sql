-- Vigil's transactional store: organizations, users, roles, API keys, models.
-- Portable across SQLite and PostgreSQL: TEXT ids (UUIDs), BIGINT times in
-- Unix microseconds (UTC), JSON documents as TEXT.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE roles (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    permissions TEXT NOT NULL,
    built_in    BOOLEAN NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    username      TEXT NOT NULL UNIQUE,
    email         TEXT NOT NULL,
    full_name     TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL,
    active        BOOLEAN NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX users_org ON users (org_id, created_at);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    hint         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    expires_at   BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

CREATE TABLE models (
    id                    TEXT PRIMARY KEY,
    org_id                TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name                  TEXT NOT NULL,
    version               TEXT NOT NULL,
    description           TEXT NOT NULL,
    model_type            TEXT NOT NULL,
    framework             TEXT NOT NULL,
    status                TEXT NOT NULL,
    status_before_archive TEXT NOT NULL,
    owner_id              TEXT NOT NULL,
    target_variable       TEXT NOT NULL,
    metadata              TEXT NOT NULL,
    baseline_metrics      TEXT NOT NULL,
    monitoring_config     TEXT NOT NULL,
    monitoring_enabled    BOOLEAN NOT NULL,
    features              TEXT NOT NULL,
    fairness_attributes   TEXT NOT NULL,
    protected_groups      TEXT NOT NULL,
    tags                  TEXT NOT NULL,
    prediction_count      BIGINT NOT NULL,
    last_prediction_at    BIGINT,
    archived_at           BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL,
    -- name and description lower-cased by Vigil for search
    search_text           TEXT NOT NULL,
    UNIQUE (org_id, name, version)
);
CREATE INDEX models_org_created ON models (org_id, created_at);

CREATE TABLE model_tags (
    model_id TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    org_id   TEXT NOT NULL,
    tag      TEXT NOT NULL,
    PRIMARY KEY (model_id, tag)
);
CREATE INDEX model_tags_org_tag ON model_tags (org_id, tag);
