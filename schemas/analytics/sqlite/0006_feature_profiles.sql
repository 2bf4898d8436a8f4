-- Hourly feature profiles of each model's inputs and outputs
-- (processors.ProfileSnapshot): the profile and, per log partition, the
-- highest offset folded into it, both as JSON text; hour in Unix
-- microseconds.
CREATE TABLE feature_profiles (
    org_id   TEXT NOT NULL,
    model_id TEXT NOT NULL,
    side     TEXT NOT NULL,
    hour     BIGINT NOT NULL,
    profile  TEXT NOT NULL,
    offsets  TEXT NOT NULL,
    PRIMARY KEY (org_id, model_id, side, hour)
) WITHOUT ROWID;
