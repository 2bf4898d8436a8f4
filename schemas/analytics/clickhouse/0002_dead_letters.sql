-- Events the store refused for good (processors.DeadLetter), set aside so
-- that the log keeps moving. A dead letter set aside again (a replay) has
-- the same sort key and is merged away; reads use FINAL.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS dead_letters (
    org_id    String,
    kind      String,
    model_id  String,
    event_id  String,
    event     String,
    reason    String,
    failed_at Int64
) ENGINE = ReplacingMergeTree()
ORDER BY (org_id, kind, model_id, event_id)
