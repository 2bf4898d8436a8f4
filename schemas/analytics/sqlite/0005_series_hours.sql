-- Metric values and LLM completions summed per hour, beside the minutes.
-- The store fills them from the minutes kept so far when it opens
-- (query.FillHours).
CREATE TABLE metric_hours (
    org_id      TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    metric_type TEXT NOT NULL,
    hour        BIGINT NOT NULL,
    n           BIGINT NOT NULL,
    total       REAL NOT NULL,
    min_value   REAL NOT NULL,
    max_value   REAL NOT NULL,
    PRIMARY KEY (org_id, model_id, metric_type, hour)
) WITHOUT ROWID;


CREATE TABLE completion_hours (
    org_id            TEXT NOT NULL,
    model_id          TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    hour              BIGINT NOT NULL,
    completions       BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cost              REAL NOT NULL,
    latency_count     BIGINT NOT NULL,
    latency_sum       REAL NOT NULL,
    PRIMARY KEY (org_id, model_id, model_name, hour)
) WITHOUT ROWID;
