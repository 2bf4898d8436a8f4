-- Hourly feature profiles of each model's inputs and outputs
-- (processors.ProfileSnapshot): the profile and, per log partition, the
-- highest offset folded into it, both as JSON text. A save inserts the
-- snapshot's newest version; reads use FINAL.
-- Statements are separated by lines holding only ";".

CREATE TABLE IF NOT EXISTS feature_profiles (
    org_id   String,
    model_id String,
    side     String,
    hour     Int64,
    profile  String,
    offsets  String,
    version  UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(hour, 1000000)))
ORDER BY (org_id, model_id, side, hour)
