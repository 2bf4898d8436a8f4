-- Expiring OAuth user tokens of the code host (issue 19): an OAuth
-- connection whose token expires keeps its refresh token sealed the same
-- way as its access token (secretbox, label of the connection), and when
-- the access token expires (Unix microseconds; 0: it does not). A refresh
-- is claimed first (refresh_claimed_until, Unix microseconds), so that of
-- replicas refreshing at once only one spends the single-use refresh
-- token; the others wait for the pair it stores.

ALTER TABLE codehost_connections ADD COLUMN sealed_refresh_token TEXT NOT NULL DEFAULT '';
ALTER TABLE codehost_connections ADD COLUMN token_expires_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE codehost_connections ADD COLUMN refresh_claimed_until BIGINT NOT NULL DEFAULT 0;
