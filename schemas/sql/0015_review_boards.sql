-- Governance review boards (governance/review): boards and their members,
-- requests about a model, the panel each request fixed when it was
-- submitted, and the members' decisions. Times are Unix microseconds.

CREATE TABLE review_boards (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    default_quorum INTEGER,
    created_by     TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    -- A deleted board leaves the list and frees its name; its requests
    -- keep naming it in the archive.
    deleted_at     BIGINT
);
CREATE UNIQUE INDEX review_boards_name ON review_boards (org_id, name) WHERE deleted_at IS NULL;

CREATE TABLE review_board_members (
    org_id   TEXT NOT NULL,
    board_id TEXT NOT NULL REFERENCES review_boards (id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role     TEXT NOT NULL,
    added_at BIGINT NOT NULL,
    PRIMARY KEY (board_id, user_id)
);

CREATE TABLE review_requests (
    id                 TEXT PRIMARY KEY,
    org_id             TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id           TEXT NOT NULL REFERENCES review_boards (id) ON DELETE CASCADE,
    -- No key to models: the decisions about a model deleted since stay
    -- in the archive (the write that creates a request checks the model).
    model_id           TEXT NOT NULL,
    title              TEXT NOT NULL,
    description        TEXT NOT NULL,
    -- search_text is title and description lower-cased, for the archive's
    -- text filter on both engines alike.
    search_text        TEXT NOT NULL,
    requested_decision TEXT NOT NULL,
    quorum             INTEGER,
    status             TEXT NOT NULL,
    outcome            TEXT,
    created_by         TEXT,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    submitted_at       BIGINT,
    finalized_at       BIGINT,
    finalized_by       TEXT,
    -- Set by the write that finalizes a request denied or sent back,
    -- cleared once its governance event is on the log (the outbox).
    governance_pending BOOLEAN NOT NULL
);
CREATE INDEX review_requests_org ON review_requests (org_id, created_at, id);
CREATE INDEX review_requests_board ON review_requests (board_id, status);
CREATE INDEX review_requests_model ON review_requests (org_id, model_id, created_at);
CREATE INDEX review_requests_status ON review_requests (org_id, status, outcome, created_at);
CREATE INDEX review_requests_owed ON review_requests (governance_pending, finalized_at);

-- The panel: the board's members when the request was submitted, names
-- kept as they were.
CREATE TABLE review_panel (
    org_id     TEXT NOT NULL,
    request_id TEXT NOT NULL REFERENCES review_requests (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    username   TEXT NOT NULL,
    role       TEXT NOT NULL,
    PRIMARY KEY (request_id, user_id)
);
CREATE INDEX review_panel_user ON review_panel (org_id, user_id, role);

-- One decision per member and request: the key refuses a second one.
CREATE TABLE review_decisions (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    request_id TEXT NOT NULL REFERENCES review_requests (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    username   TEXT NOT NULL,
    decision   TEXT NOT NULL,
    comment    TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (request_id, user_id)
);
