-- A uniform sample of an uploaded drift reference's rows (issue 16:
-- background rows of explanations whose request sends none): sample_rows
-- is a JSON array of at most 200 rows of reference_data (feature name to
-- value), a reservoir over the sample_seen rows offered since the
-- reference was put (PUT replaces it, each append offers its rows).
-- References uploaded before this migration start with an empty sample
-- that their later appends fill.
ALTER TABLE drift_references ADD COLUMN sample_rows TEXT NOT NULL DEFAULT '[]';
ALTER TABLE drift_references ADD COLUMN sample_seen BIGINT NOT NULL DEFAULT 0;
