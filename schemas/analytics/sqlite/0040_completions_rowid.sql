-- Completions in a rowid table, appended in arrival order, with their key
-- (org_id, model_id, event_id) in a unique index of its own. As a WITHOUT
-- ROWID table keyed by event id, every completion (about a kilobyte with
-- its prompt and answer) went to a random place among the stored ones:
-- OTLP's event ids (trace and span ids) are random, so each batch rewrote
-- pages all over the table and split them. Now the rows are appended and
-- only the small key entries land at random. Same columns, same reads.
CREATE TABLE completions_by_arrival (
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
    error             TEXT NOT NULL DEFAULT '',
    toxicity          TEXT NOT NULL DEFAULT '',
    flagged           BIGINT NOT NULL DEFAULT 0
);
INSERT INTO completions_by_arrival (org_id, model_id, event_id, provider, model_name, prompt, completion, prompt_tokens,
    completion_tokens, total_tokens, latency_ms, cost, metadata, ts, error, toxicity, flagged)
    SELECT org_id, model_id, event_id, provider, model_name, prompt, completion, prompt_tokens,
        completion_tokens, total_tokens, latency_ms, cost, metadata, ts, error, toxicity, flagged
    FROM completions ORDER BY ts;
DROP TABLE completions;
ALTER TABLE completions_by_arrival RENAME TO completions;
CREATE UNIQUE INDEX completions_key ON completions (org_id, model_id, event_id);
CREATE INDEX completions_by_time ON completions (org_id, model_id, ts);
