-- completion_ids finds a caller's completion_id logged again (a retry, or
-- a batch sent twice, with a new timestamp) by primary key, however old
-- the first one is, as prediction_ids does for prediction_id.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS completion_ids (
    org_id   String,
    model_id String,
    event_id String,
    ts       Int64
) ENGINE = ReplacingMergeTree()
ORDER BY (org_id, model_id, event_id)
