-- Deliveries straight to a method (issue 41 point 11): a scheduled
-- report's recipients and a configuration's delivery entries are
-- delivered without an integration. method is the delivery method of
-- spec 1 (email, webhook, s3, sftp, api, download; for a delivery to an
-- integration, its type), recipients the e-mail addresses of a direct
-- email delivery as a JSON array; integration_id is '' when no
-- integration is named.

ALTER TABLE export_deliveries ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE export_deliveries ADD COLUMN recipients TEXT NOT NULL DEFAULT '[]';
