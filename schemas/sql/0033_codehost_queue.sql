-- The code host's deliveries become a durable queue (integrations/codehost):
-- a received delivery waits until next_attempt_at, a processor leases it
-- (lease_owner until lease_until; a lease that runs out, its processor
-- gone, is claimed again), each claim counts an attempt, a failure sets
-- the backoff and last_error, and the outcome of processing (the model
-- files found, the versions registered, those logged for review, the
-- problems of .monitor.yml) is kept as JSON in result.

ALTER TABLE codehost_deliveries ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE codehost_deliveries ADD COLUMN next_attempt_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE codehost_deliveries ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE codehost_deliveries ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE codehost_deliveries ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
ALTER TABLE codehost_deliveries ADD COLUMN result TEXT NOT NULL DEFAULT '{}';
ALTER TABLE codehost_deliveries ADD COLUMN processed_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX codehost_deliveries_queue ON codehost_deliveries (status, next_attempt_at);
