-- Predictions summed per hour, beside the minutes: a month's stats read
-- about 720 hour rows instead of 43,200 minutes. Both rollups also count
-- the class labels of output_data (query.OutputLabels) as the JSON text of
-- a query.OutputDistribution, '' when there are none.
ALTER TABLE prediction_minutes ADD COLUMN output_counts TEXT NOT NULL DEFAULT '';

CREATE TABLE prediction_hours (
    org_id         TEXT NOT NULL,
    model_id       TEXT NOT NULL,
    hour           BIGINT NOT NULL,
    predictions    BIGINT NOT NULL,
    latency_count  BIGINT NOT NULL,
    latency_sum    REAL NOT NULL,
    latency_min    REAL,
    latency_max    REAL,
    latency_sketch BLOB,
    output_counts  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (org_id, model_id, hour)
) WITHOUT ROWID;
