-- Shares of completed exports with an outside recipient (issue 17 point 7,
-- spec 1): the public link /share/{slug} reveals nothing until the
-- recipient proves control of recipient_email with a one-time passcode.
-- status is pending, verified or revoked; a share past expires_at is
-- closed like a revoked one. The share's one current passcode is kept as
-- code_hash (SHA-256 of the share id and the code; '' when none was asked
-- for), valid until code_expires_at, burnt after code_tries wrong tries,
-- used once (code_used). Verification is a single conditional UPDATE on
-- the unused code, so that of parallel verifications only one issues a
-- token. Times are Unix microseconds.

CREATE TABLE export_shares (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    export_id       TEXT NOT NULL,
    slug            TEXT NOT NULL UNIQUE,
    recipient_email TEXT NOT NULL,
    status          TEXT NOT NULL,
    view_count      INTEGER NOT NULL,
    created_by      TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    verified_at     BIGINT,
    revoked_at      BIGINT,
    code_hash       TEXT NOT NULL,
    code_expires_at BIGINT NOT NULL,
    code_tries      INTEGER NOT NULL,
    code_used       BOOLEAN NOT NULL
);

CREATE INDEX export_shares_by_export ON export_shares (org_id, export_id, created_at);

-- Download tokens issued by a verification: only their SHA-256 is kept;
-- each authorizes the download of its share's one export until expires_at.
CREATE TABLE export_share_tokens (
    token_hash TEXT PRIMARY KEY,
    share_id   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX export_share_tokens_by_share ON export_share_tokens (share_id);

-- The share audit trail: created, code_requested, verified, denied,
-- viewed, revoked; detail says why for a denial.
CREATE TABLE export_share_events (
    id       TEXT PRIMARY KEY,
    share_id TEXT NOT NULL,
    org_id   TEXT NOT NULL,
    kind     TEXT NOT NULL,
    detail   TEXT NOT NULL,
    actor    TEXT NOT NULL,
    at       BIGINT NOT NULL
);

CREATE INDEX export_share_events_by_share ON export_share_events (share_id, at, id);
