-- Metric values and LLM completions summed per hour, beside the minutes.
-- An hour is recomputed from its minutes after each write that touches it
-- and kept as the newest version; a store kept before these tables existed
-- fills them from its minutes on first use.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS metric_hours (
    org_id      String,
    model_id    String,
    metric_type String,
    hour        Int64,
    n           Int64,
    total       Float64,
    min_value   Float64,
    max_value   Float64,
    version     UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(hour, 1000000)))
ORDER BY (org_id, model_id, metric_type, hour)
;
CREATE TABLE IF NOT EXISTS completion_hours (
    org_id            String,
    model_id          String,
    model_name        String,
    hour              Int64,
    completions       Int64,
    prompt_tokens     Int64,
    completion_tokens Int64,
    total_tokens      Int64,
    cost              Float64,
    latency_count     Int64,
    latency_sum       Float64,
    version           UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(hour, 1000000)))
ORDER BY (org_id, model_id, model_name, hour)
