-- The analytical store on ClickHouse. Works on ClickHouse 18.16 and current
-- releases: times are Int64 Unix microseconds (no DateTime64 there),
-- partitions are months, rows are ordered by organization, model and time.
-- A replayed event lands on the same sort key and is merged away by
-- ReplacingMergeTree; reads that must not see it twice use FINAL.
-- prediction_ids finds a caller's prediction_id logged again (with a new
-- timestamp) by primary key, however old the first one is.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS predictions (
    org_id      String,
    model_id    String,
    event_id    String,
    ts          Int64,
    latency_ms  Nullable(Float64),
    input_data  String,
    output_data String,
    metadata    String
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(toDateTime(intDiv(ts, 1000000)))
ORDER BY (org_id, model_id, ts, event_id)
;
CREATE TABLE IF NOT EXISTS prediction_ids (
    org_id   String,
    model_id String,
    event_id String,
    ts       Int64
) ENGINE = ReplacingMergeTree()
ORDER BY (org_id, model_id, event_id)
;
CREATE TABLE IF NOT EXISTS prediction_minutes (
    org_id        String,
    model_id      String,
    minute        Int64,
    predictions   UInt64,
    latency_count UInt64,
    latency_sum   Float64,
    latency_min   Nullable(Float64),
    latency_max   Nullable(Float64),
    latency_sketch String,
    version       UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(minute, 1000000)))
ORDER BY (org_id, model_id, minute)
;
CREATE TABLE IF NOT EXISTS metrics (
    org_id      String,
    model_id    String,
    event_id    String,
    metric_type String,
    value       Float64,
    metadata    String,
    ts          Int64
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(toDateTime(intDiv(ts, 1000000)))
ORDER BY (org_id, model_id, metric_type, ts, event_id)
;
CREATE TABLE IF NOT EXISTS completions (
    org_id            String,
    model_id          String,
    event_id          String,
    provider          String,
    model_name        String,
    prompt            String,
    completion        String,
    prompt_tokens     Int64,
    completion_tokens Int64,
    total_tokens      Int64,
    latency_ms        Nullable(Float64),
    cost              Float64,
    metadata          String,
    ts                Int64
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(toDateTime(intDiv(ts, 1000000)))
ORDER BY (org_id, model_id, ts, event_id)
