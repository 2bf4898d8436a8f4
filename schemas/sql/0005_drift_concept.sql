-- Concept drift: a report of drift_type concept compares a quality metric
-- of a recent window with its baseline; concept is that comparison as a
-- JSON document stored as TEXT (NULL or JSON null on data and prediction
-- reports).

ALTER TABLE drift_reports ADD COLUMN concept TEXT;
