-- Dead letters counted per organization, model and minute (Unix
-- microseconds of the minute's start) by a materialized view on the
-- inserts into dead_letters: each minute keeps the set of its events
-- (uniqExact state of kind and event id), so a dead letter set aside again
-- (a replay) counts once, as it is merged away in dead_letters. The alerts'
-- dead_letters metric reads these counts, never the dead letters. Dead
-- letters set aside before this table existed are not counted.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS dead_letter_minutes (
    org_id   String,
    model_id String,
    minute   Int64,
    events   AggregateFunction(uniqExact, String)
) ENGINE = AggregatingMergeTree()
ORDER BY (org_id, model_id, minute)
;
CREATE MATERIALIZED VIEW IF NOT EXISTS dead_letter_minutes_mv TO dead_letter_minutes AS
    SELECT org_id, model_id, intDiv(failed_at, 60000000) * 60000000 AS minute, uniqExactState(concat(kind, '/', event_id)) AS events
    FROM dead_letters GROUP BY org_id, model_id, minute
