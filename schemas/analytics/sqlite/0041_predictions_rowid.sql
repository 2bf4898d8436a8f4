-- Predictions in a rowid table, appended in arrival order, with their key
-- (org_id, model_id, event_id) in a unique index of its own, as 0040 did
-- for completions. As a WITHOUT ROWID table keyed by prediction id, every
-- row (its input, output and metadata documents) went to the place of its
-- id among the stored ones: client ids (UUIDs, or counters that do not
-- sort as they grow) put each batch's rows all over the table, splitting
-- and rewriting full pages. Now the rows are appended and only the small
-- key and time entries land in the middle. The time index ends with
-- event_id, so reads in (ts, event_id) order still walk it without a sort.
CREATE TABLE predictions_by_arrival (
    org_id      TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    ts          BIGINT NOT NULL,
    latency_ms  REAL,
    input_data  TEXT NOT NULL,
    output_data TEXT NOT NULL,
    metadata    TEXT NOT NULL
);
INSERT INTO predictions_by_arrival (org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata)
    SELECT org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata
    FROM predictions ORDER BY ts;
DROP TABLE predictions;
ALTER TABLE predictions_by_arrival RENAME TO predictions;
CREATE UNIQUE INDEX predictions_key ON predictions (org_id, model_id, event_id);
CREATE INDEX predictions_by_time ON predictions (org_id, model_id, ts, event_id);
