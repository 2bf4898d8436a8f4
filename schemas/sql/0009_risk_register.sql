-- The risk register (governance/risk): entries, the models each names,
-- their audit trail, and each organization's scoring override. Times are
-- Unix microseconds; JSON documents are TEXT.

CREATE TABLE risk_entries (
    id                     TEXT PRIMARY KEY,
    org_id                 TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    title                  TEXT NOT NULL,
    description            TEXT NOT NULL,
    category               TEXT NOT NULL,
    likelihood             INTEGER NOT NULL,
    impact                 INTEGER NOT NULL,
    risk_score             INTEGER NOT NULL,
    severity               TEXT NOT NULL,
    -- severity_rank orders the severities: 4 critical, 3 high, 2 medium,
    -- 1 low (the portfolio's top risks).
    severity_rank          INTEGER NOT NULL,
    status                 TEXT NOT NULL,
    is_open                BOOLEAN NOT NULL,
    owner_id               TEXT,
    mitigation_plan        TEXT NOT NULL,
    target_resolution_date TEXT,
    review_cadence_days    INTEGER,
    next_review_at         BIGINT,
    -- A drafted entry names the record it came from; NULLs (manual
    -- entries) are distinct, so the unique key holds drafted entries to
    -- one per source record, whatever replays the event.
    source_type            TEXT,
    source_id              TEXT,
    closed_at              BIGINT,
    created_by             TEXT,
    created_at             BIGINT NOT NULL,
    updated_at             BIGINT NOT NULL,
    UNIQUE (org_id, source_type, source_id)
);
CREATE INDEX risk_entries_org ON risk_entries (org_id, created_at, id);
CREATE INDEX risk_entries_status ON risk_entries (org_id, status, severity, created_at);
CREATE INDEX risk_entries_category ON risk_entries (org_id, category, created_at);
CREATE INDEX risk_entries_owner ON risk_entries (org_id, owner_id, created_at);
CREATE INDEX risk_entries_severity ON risk_entries (org_id, severity, created_at);
-- The portfolio's top risks: open entries, most severe first.
CREATE INDEX risk_entries_open ON risk_entries (org_id, is_open, severity_rank, risk_score, created_at, id);

-- The portfolio's counts of open entries per likelihood, impact and
-- severity, kept by the writes that create, move or rescore an entry (in
-- their transaction), so that the heat map reads 25 rows at most, not
-- every entry.
CREATE TABLE risk_counts (
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    likelihood INTEGER NOT NULL,
    impact     INTEGER NOT NULL,
    severity   TEXT NOT NULL,
    n          BIGINT NOT NULL,
    PRIMARY KEY (org_id, likelihood, impact, severity)
);

-- created_at is the entry's, so that a page of one model's entries,
-- newest first, reads the model's links in index order.
CREATE TABLE risk_entry_models (
    org_id     TEXT NOT NULL,
    entry_id   TEXT NOT NULL REFERENCES risk_entries (id) ON DELETE CASCADE,
    model_id   TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (entry_id, model_id)
);
CREATE INDEX risk_entry_models_model ON risk_entry_models (org_id, model_id, created_at, entry_id);

CREATE TABLE risk_events (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    entry_id    TEXT NOT NULL REFERENCES risk_entries (id) ON DELETE CASCADE,
    action      TEXT NOT NULL,
    description TEXT NOT NULL,
    details     TEXT NOT NULL,
    user_id     TEXT,
    username    TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX risk_events_entry ON risk_events (entry_id, created_at, id);

CREATE TABLE risk_configs (
    org_id     TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    override   TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
