-- The computation time of a completed explanation as a column (it is also
-- in result), so that GET /explanations/stats averages it in the store.
-- Explanations completed before this migration have none and are left out
-- of the mean.

ALTER TABLE explanations ADD COLUMN computation_ms DOUBLE PRECISION;
