-- LLM completions in depth: each completion's error ('' when the call
-- succeeded) and toxicity check (JSON text, '' without one; flagged 1 when
-- toxic), and rollups by provider and model_name per minute and per hour
-- with errors, checks, flags and a latency sketch (quantile.Hybrid) for
-- p50/p95/p99. The hours are filled from the stored completions on the
-- first start after this migration (analytics.FillHours).

ALTER TABLE completions ADD COLUMN error TEXT NOT NULL DEFAULT '';
ALTER TABLE completions ADD COLUMN toxicity TEXT NOT NULL DEFAULT '';
ALTER TABLE completions ADD COLUMN flagged BIGINT NOT NULL DEFAULT 0;

CREATE TABLE llm_minutes (
    org_id            TEXT NOT NULL,
    model_id          TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    minute            BIGINT NOT NULL,
    completions       BIGINT NOT NULL,
    errors            BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cost              REAL NOT NULL,
    scored            BIGINT NOT NULL,
    flagged           BIGINT NOT NULL,
    latency_count     BIGINT NOT NULL,
    latency_sum       REAL NOT NULL,
    latency_sketch    BLOB,
    PRIMARY KEY (org_id, model_id, provider, model_name, minute)
) WITHOUT ROWID;

CREATE TABLE llm_hours (
    org_id            TEXT NOT NULL,
    model_id          TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    hour              BIGINT NOT NULL,
    completions       BIGINT NOT NULL,
    errors            BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cost              REAL NOT NULL,
    scored            BIGINT NOT NULL,
    flagged           BIGINT NOT NULL,
    latency_count     BIGINT NOT NULL,
    latency_sum       REAL NOT NULL,
    latency_sketch    BLOB,
    PRIMARY KEY (org_id, model_id, provider, model_name, hour)
) WITHOUT ROWID;
