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
// The drift mapping reads the share of drifted features (data and
// prediction reports) or the relative degradation of the quality metric
// (concept reports) as the loss of trust, and lets the severity bound it,
// so that one feature drifting badly among many still weighs; the worst
// drift type decides, as the worst metric decides a fairness score.
// explained_predictions_ratio is the share of the model's logged
// predictions of the last 7 days that have a completed explanation; the
// processor role keeps it for the models with auto_explain on
// (explanation.Coverer) and the store snapshots the score when it
// changes. Before a ratio is kept, explainability is unavailable. The weights
// answered with a score are renormalized over the available inputs (they
// sum to 1); trust_score is null when no input with a positive weight
// exists. The defaults are 0.4 fairness, 0.4 drift, 0.2 explainability.
//
// # Snapshots
//
// The store takes a snapshot in the transaction that stores a drift
// report, completes a bias audit, deletes a completed one, changes a
// model's explained ratio or changes the weights (then of every
// model of the organization with an input), never on a read; one per
// cause, numbered per model, so a replayed write cannot take a second one.
// A model whose inputs predate the trust score gets its first snapshot at
// its next input change or weight change.
//
// trend_direction compares the newest scored snapshot of the history with
// the oldest: improving when the score rose by TrendThreshold (2 points)
// or more, declining when it fell by as much, stable otherwise, null with
// fewer than two scored snapshots.
//
// It imports identity, registry, plumbing and the store errors; it must
// not import the stores' engines, the processors or the event log.
package trust
