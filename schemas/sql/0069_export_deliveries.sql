-- Deliveries of exports (issue 17 point 6): one row per export and
-- delivery integration a schedule names, written in the transaction that
-- asks for the export. status is pending until the export is final and a
-- deliverer has tried it, then sent or failed (error says why, detail
-- where it went); attempts counts the tries. A deliverer claims a row by
-- a compare-and-swap on (status, updated_at). Times are Unix
-- microseconds.

CREATE TABLE export_deliveries (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL,
    export_id      TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    status         TEXT NOT NULL,
    attempts       INTEGER NOT NULL,
    error          TEXT NOT NULL,
    detail         TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE INDEX export_deliveries_owed ON export_deliveries (status, updated_at);
CREATE INDEX export_deliveries_by_export ON export_deliveries (org_id, export_id, created_at);
