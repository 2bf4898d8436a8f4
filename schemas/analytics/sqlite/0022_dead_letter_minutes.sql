-- Dead letters counted per organization, model and minute (Unix
-- microseconds of the minute's start), kept by SetAside in the dead
-- letters' own transaction for each one newly set aside (a replay counts
-- once): the alerts' dead_letters metric reads these counts, never the
-- dead letters. Numbered 0022 to stay clear of the other branches'
-- analytics migrations (versions may leave gaps).
CREATE TABLE dead_letter_minutes (
    org_id   TEXT NOT NULL,
    model_id TEXT NOT NULL,
    minute   BIGINT NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (org_id, model_id, minute)
) WITHOUT ROWID;
INSERT INTO dead_letter_minutes (org_id, model_id, minute, count)
    SELECT org_id, model_id, failed_at / 60000000 * 60000000, COUNT(*) FROM dead_letters GROUP BY org_id, model_id, failed_at / 60000000;
