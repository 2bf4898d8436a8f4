-- Report templates an organization writes (issue 17, /export/templates):
-- name, description, report_category (one of spec 1's categories) and
-- sections, a JSON array of report section ids in report order. The
-- built-in templates are not stored: they are the same on every
-- installation (package export). Times are Unix microseconds.

CREATE TABLE export_templates (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL,
    report_category TEXT NOT NULL,
    sections        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE INDEX export_templates_by_org ON export_templates (org_id, created_at);
