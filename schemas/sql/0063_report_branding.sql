-- Report branding of an organization (issue 17, PATCH
-- /organizations/{id}/branding and POST .../branding/logo): the primary
-- colour ("#rrggbb", empty for the default) and the logo, base64 in logo
-- (empty for none) with its sniffed media type, image/png or
-- image/svg+xml. One row per organization that set any. Times are Unix
-- microseconds.

CREATE TABLE report_branding (
    org_id        TEXT PRIMARY KEY,
    primary_color TEXT NOT NULL,
    logo          TEXT NOT NULL,
    logo_type     TEXT NOT NULL,
    updated_at    BIGINT NOT NULL
);
