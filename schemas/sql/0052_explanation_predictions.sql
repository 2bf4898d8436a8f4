-- Explanations of logged predictions (issue 16): prediction_id is the
-- logged prediction an explanation explains ('' when the request sent an
-- instance), so that GET /explanations/by-prediction/{prediction_id} finds
-- the newest one.

ALTER TABLE explanations ADD COLUMN prediction_id TEXT NOT NULL DEFAULT '';

CREATE INDEX explanations_by_prediction ON explanations (org_id, prediction_id, created_at);
