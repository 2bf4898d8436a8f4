-- A tracked repository's revision (integrations/codehost): every change of
-- its options or webhook is an UPDATE conditional on the revision read,
-- which it increments, so that two concurrent changes (PATCH and webhook
-- setup) cannot write over each other: the one whose revision is stale
-- reads the repository again and re-applies its change.

ALTER TABLE codehost_repositories ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
