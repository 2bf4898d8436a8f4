-- Rate-limit counters and blocks kept in the transactional store
-- (sqlstore.Limits), so that login back-offs survive a restart when no
-- Redis is configured. One row per key: a counter (count, expiring at
-- count_until; 0: never) and a block (until blocked_until); times are Unix
-- microseconds. Rows whose counter and block have both run out are swept.

CREATE TABLE ratelimit (
	key TEXT PRIMARY KEY,
	count BIGINT NOT NULL DEFAULT 0,
	count_until BIGINT NOT NULL DEFAULT 0,
	blocked_until BIGINT NOT NULL DEFAULT 0
);
