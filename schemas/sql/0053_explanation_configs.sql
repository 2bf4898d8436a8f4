-- Per-model explanation configuration (issue 16; spec 3's enabled,
-- default_method, auto_explain, cache_enabled, cache_ttl_hours). A model
-- without a row has the defaults of explanation.DefaultConfig. enabled =
-- false refuses POST /explanations/generate; default_method is the method
-- of a request that names none. updated_at is Unix microseconds.

CREATE TABLE explanation_configs (
    model_id        TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id          TEXT NOT NULL,
    enabled         BOOLEAN NOT NULL,
    default_method  TEXT NOT NULL,
    auto_explain    BOOLEAN NOT NULL,
    cache_enabled   BOOLEAN NOT NULL,
    cache_ttl_hours INTEGER NOT NULL,
    updated_at      BIGINT NOT NULL
);
