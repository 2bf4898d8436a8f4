-- OAuth authorizations in flight (integrations/codehost): authorize stores
-- the nonce of the signed state it hands out, bound to the user and
-- organization that started it and expiring ten minutes later; the callback
-- deletes it in the statement that checks it, so a state works once.

CREATE TABLE codehost_oauth_states (
    nonce      TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX codehost_oauth_states_expiry ON codehost_oauth_states (expires_at);
