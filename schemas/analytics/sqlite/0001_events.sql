-- The embedded analytical store: events as logged, one row per
-- (organization, model, event id), and per-minute rollups kept in the same
-- transaction as the rows they count. Times are Unix microseconds (UTC).

CREATE TABLE predictions (
    org_id      TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    ts          BIGINT NOT NULL,
    latency_ms  REAL,
    input_data  TEXT NOT NULL,
    output_data TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    PRIMARY KEY (org_id, model_id, event_id)
) WITHOUT ROWID;
CREATE INDEX predictions_by_time ON predictions (org_id, model_id, ts);

CREATE TABLE prediction_minutes (
    org_id        TEXT NOT NULL,
    model_id      TEXT NOT NULL,
    minute        BIGINT NOT NULL,
    predictions   BIGINT NOT NULL,
    latency_count BIGINT NOT NULL,
    latency_sum   REAL NOT NULL,
    latency_min   REAL,
    latency_max   REAL,
    PRIMARY KEY (org_id, model_id, minute)
) WITHOUT ROWID;

CREATE TABLE metrics (
    org_id      TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    metric_type TEXT NOT NULL,
    value       REAL NOT NULL,
    metadata    TEXT NOT NULL,
    ts          BIGINT NOT NULL,
    PRIMARY KEY (org_id, model_id, event_id)
) WITHOUT ROWID;
CREATE INDEX metrics_by_type ON metrics (org_id, model_id, metric_type, ts);

CREATE TABLE metric_minutes (
    org_id      TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    metric_type TEXT NOT NULL,
    minute      BIGINT NOT NULL,
    n           BIGINT NOT NULL,
    total       REAL NOT NULL,
    min_value   REAL NOT NULL,
    max_value   REAL NOT NULL,
    PRIMARY KEY (org_id, model_id, metric_type, minute)
) WITHOUT ROWID;

CREATE TABLE completions (
    org_id            TEXT NOT NULL,
    model_id          TEXT NOT NULL,
    event_id          TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    prompt            TEXT NOT NULL,
    completion        TEXT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    latency_ms        REAL,
    cost              REAL NOT NULL,
    metadata          TEXT NOT NULL,
    ts                BIGINT NOT NULL,
    PRIMARY KEY (org_id, model_id, event_id)
) WITHOUT ROWID;
CREATE INDEX completions_by_time ON completions (org_id, model_id, ts);

CREATE TABLE completion_minutes (
    org_id            TEXT NOT NULL,
    model_id          TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    minute            BIGINT NOT NULL,
    completions       BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cost              REAL NOT NULL,
    latency_count     BIGINT NOT NULL,
    latency_sum       REAL NOT NULL,
    PRIMARY KEY (org_id, model_id, model_name, minute)
) WITHOUT ROWID;
