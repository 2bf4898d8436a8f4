-- Predictions summed per hour, beside the minutes: a month's stats read
-- about 720 hour rows instead of 43,200 minutes. Each write adds its new
-- predictions to the minutes and hours they fall in (see
-- 0006_rollup_offsets.sql) and inserts them as the newest version.
-- Both rollups count the class labels of output_data (query.OutputLabels)
-- as the JSON text of a query.OutputDistribution ('' when none).
-- ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS: the store skips an
-- ADD COLUMN whose column exists (error 44).
-- Statements are separated by lines holding only ";".

ALTER TABLE prediction_minutes ADD COLUMN output_counts String
;
CREATE TABLE IF NOT EXISTS prediction_hours (
    org_id         String,
    model_id       String,
    hour           Int64,
    predictions    UInt64,
    latency_count  UInt64,
    latency_sum    Float64,
    latency_min    Nullable(Float64),
    latency_max    Nullable(Float64),
    latency_sketch String,
    output_counts  String,
    version        UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(hour, 1000000)))
ORDER BY (org_id, model_id, hour)
