-- Export jobs (POST /export/exports, issue 17): one row per report asked
-- for. template is a JSON copy of the template (id, name, description, category,
-- sections) taken when the job was asked for; models a JSON array of
-- {id, name}; start_day and end_day the period's first and last day
-- (midnight UTC). status is pending, in_progress, completed, failed
-- (error says why) or cancelled; progress 0 to 100; file the rendered
-- file's name in the API role's export folder once completed. A runner
-- claims a job by a compare-and-swap on (status, updated_at) and bumps
-- updated_at at each stage, so that a pending job, or one in progress
-- whose runner stopped (not updated for a while), is picked up again
-- after a restart; attempts bounds those runs. Times are Unix
-- microseconds.

CREATE TABLE export_jobs (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    template     TEXT NOT NULL,
    models       TEXT NOT NULL,
    format       TEXT NOT NULL,
    start_day    BIGINT NOT NULL,
    end_day      BIGINT NOT NULL,
    status       TEXT NOT NULL,
    progress     INTEGER NOT NULL,
    error        TEXT NOT NULL,
    file         TEXT NOT NULL,
    size         BIGINT NOT NULL,
    attempts     INTEGER NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    completed_at BIGINT
);

CREATE INDEX export_jobs_by_org ON export_jobs (org_id, created_at);
CREATE INDEX export_jobs_owed ON export_jobs (status, updated_at);
