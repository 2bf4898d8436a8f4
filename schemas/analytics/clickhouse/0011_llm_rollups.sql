-- LLM completions in depth: each completion's error ('' when the call
-- succeeded) and toxicity check (JSON text, '' without one; flagged 1 when
-- toxic), and rollups by provider and model_name per minute and per hour
-- with errors, checks, flags and a latency sketch (quantile.Hybrid) for
-- p50/p95/p99. Each minute a batch touches is rewritten from the stored
-- completions as a new version, and its hour from the minutes; the hours
-- are filled from the stored completions when they are empty
-- (analytics.FillHours).
-- Statements are separated by lines holding only ";".

ALTER TABLE completions ADD COLUMN error String
;
ALTER TABLE completions ADD COLUMN toxicity String
;
ALTER TABLE completions ADD COLUMN flagged Int64
;
CREATE TABLE IF NOT EXISTS llm_minutes (
    org_id            String,
    model_id          String,
    provider          String,
    model_name        String,
    minute            Int64,
    completions       Int64,
    errors            Int64,
    prompt_tokens     Int64,
    completion_tokens Int64,
    total_tokens      Int64,
    cost              Float64,
    scored            Int64,
    flagged           Int64,
    latency_count     Int64,
    latency_sum       Float64,
    latency_sketch    String,
    version           UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(minute, 1000000)))
ORDER BY (org_id, model_id, provider, model_name, minute)
;
CREATE TABLE IF NOT EXISTS llm_hours (
    org_id            String,
    model_id          String,
    provider          String,
    model_name        String,
    hour              Int64,
    completions       Int64,
    errors            Int64,
    prompt_tokens     Int64,
    completion_tokens Int64,
    total_tokens      Int64,
    cost              Float64,
    scored            Int64,
    flagged           Int64,
    latency_count     Int64,
    latency_sum       Float64,
    latency_sketch    String,
    version           UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(hour, 1000000)))
ORDER BY (org_id, model_id, provider, model_name, hour)
