// Package trust is the per-model trust score (spec 1): a 0-100 index over
// fairness, drift and explainability, under weights each organization
// configures, kept as snapshots taken when an input changes.
//
// # Routes
//
// GET and PUT /trust-score/config (the weights; PUT overrides the weights
// it sends and needs trust:configure, which admins hold), GET
// /trust-score/models/{model_id} (the model's score: its newest
// snapshot), GET /trust-score/models/{model_id}/history (its snapshots
// and trend) and GET /trust-score/portfolio (every model's score and the
// organization's mean). Reads need trust:read (viewers and up). Another
// organization's model answers 404 MODEL_NOT_FOUND like a missing one.
//
// # Formula
//
//	fairness_component       = 100 × overall_fairness_score of the newest completed bias audit that has one
//	drift_component          = min over the newest report of each drift type (data, prediction, concept) of
//	                           100 × (1 − clamp(overall_drift_score, 0, 1)), capped when drift was detected
//	                           at 80 (low severity), 60 (medium) or 30 (high)
//	explainability_component = 100 × explained_predictions_ratio
//	trust_score              = Σ wᵢ·cᵢ / Σ wᵢ over the available inputs i, rounded to 2 decimals
//
// The notes on the formula (the drift mapping, the explained ratio, the
// renormalized weights, the defaults) sit on Compute; when snapshots are
// taken and how the trend is read, on Snapshot.
//
// It imports identity, registry, plumbing and the store errors; it must
// not import the stores' engines, the processors or the event log.
package trust
