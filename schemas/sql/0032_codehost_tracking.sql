-- The tracking options of spec 2 on a tracked repository (integrations/
-- codehost): tags and releases tracked by default, auto-register off, the
-- model path patterns as a JSON array of globs, and the code host's id of
-- the webhook that setup created (0 before), so that untracking removes it,
-- and the user who tracked it, who owns the model versions registered from it.

ALTER TABLE codehost_repositories ADD COLUMN track_tags BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE codehost_repositories ADD COLUMN track_releases BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE codehost_repositories ADD COLUMN auto_register BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE codehost_repositories ADD COLUMN model_path_patterns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE codehost_repositories ADD COLUMN webhook_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE codehost_repositories ADD COLUMN tracked_by TEXT NOT NULL DEFAULT '';
CREATE INDEX codehost_repositories_org ON codehost_repositories (org_id, created_at);
