-- Bias audits owe governance events like drift reports do: an audit
-- completed at high or critical severity is stored owing its event (in the
-- write that completes it) until the bias Runner has appended it; what is
-- still owed is appended again on every refresh (an outbox: a failed append
-- is retried, not lost). The partial index serves that look-up.

ALTER TABLE bias_audits ADD COLUMN governance_pending BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX bias_audits_governance ON bias_audits (completed_at) WHERE governance_pending;
