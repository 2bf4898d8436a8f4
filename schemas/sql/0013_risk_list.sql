-- The register's filtered list over many entries (issue 13, point 8).
--
-- Each filter's index ends with the list's order (created_at, id), so a
-- page walks one index in order and, for a late page, skips the rows
-- before it in the index alone; the status filter gets an index of its
-- own beside the status and severity one.
DROP INDEX risk_entries_status;
DROP INDEX risk_entries_category;
DROP INDEX risk_entries_owner;
DROP INDEX risk_entries_severity;
CREATE INDEX risk_entries_status ON risk_entries (org_id, status, created_at, id);
CREATE INDEX risk_entries_status_severity ON risk_entries (org_id, status, severity, created_at, id);
CREATE INDEX risk_entries_category ON risk_entries (org_id, category, created_at, id);
CREATE INDEX risk_entries_owner ON risk_entries (org_id, owner_id, created_at, id);
CREATE INDEX risk_entries_severity ON risk_entries (org_id, severity, created_at, id);

-- The list's total without counting the entries: every entry counted
-- per status, severity and category, kept by the writes that create,
-- move or rescore an entry (in their transaction), so that a total over
-- those filters sums at most a few hundred rows.
CREATE TABLE risk_tallies (
    org_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    severity TEXT NOT NULL,
    category TEXT NOT NULL,
    n        BIGINT NOT NULL,
    PRIMARY KEY (org_id, status, severity, category)
);
INSERT INTO risk_tallies (org_id, status, severity, category, n)
    SELECT org_id, status, severity, category, COUNT(*) FROM risk_entries GROUP BY org_id, status, severity, category;
