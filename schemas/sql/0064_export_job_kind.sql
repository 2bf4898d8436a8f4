-- Export jobs gain their kind and the digest of their file (issue 17):
-- kind is report (the default, every job before this migration) or
-- evidence_pack (POST /export/evidence-pack, a ZIP); digest the SHA-256
-- (hex) of the completed file, kept apart from the file so that a reader
-- can check a download against it.

ALTER TABLE export_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'report';
ALTER TABLE export_jobs ADD COLUMN digest TEXT NOT NULL DEFAULT '';
