-- How far a pending explanation's computation is (issue 16 point 5):
-- progress_done of progress_total units, progress_unit naming them
-- ('coalitions' for Kernel SHAP, 'rows' for LIME's perturbation sample),
-- written by the runner computing it at most once a second while it is
-- pending. 0 of 0 until the computation reports.
ALTER TABLE explanations ADD COLUMN progress_done BIGINT NOT NULL DEFAULT 0;
ALTER TABLE explanations ADD COLUMN progress_total BIGINT NOT NULL DEFAULT 0;
ALTER TABLE explanations ADD COLUMN progress_unit TEXT NOT NULL DEFAULT '';
