-- Per-minute rollups of metrics and LLM completions. Like
-- prediction_minutes, a minute is recomputed from the stored rows after each
-- write that touches it (INSERT ... SELECT, server-side) and kept as the
-- newest version, so a replayed event is never counted twice. Counts are
-- Int64 so that both analytical stores sum them into the same Go types.

CREATE TABLE IF NOT EXISTS metric_minutes (
    org_id      String,
    model_id    String,
    metric_type String,
    minute      Int64,
    n           Int64,
    total       Float64,
    min_value   Float64,
    max_value   Float64,
    version     UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(minute, 1000000)))
ORDER BY (org_id, model_id, metric_type, minute)
;
CREATE TABLE IF NOT EXISTS completion_minutes (
    org_id            String,
    model_id          String,
    model_name        String,
    minute            Int64,
    completions       Int64,
    prompt_tokens     Int64,
    completion_tokens Int64,
    total_tokens      Int64,
    cost              Float64,
    latency_count     Int64,
    latency_sum       Float64,
    version           UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(minute, 1000000)))
ORDER BY (org_id, model_id, model_name, minute)
