// Package coverage keeps each model's explained_predictions_ratio (issue
// 16 point 4), the trust score's explainability input: the logged
// predictions with a completed explanation (the transactional store,
// through Store) over the logged predictions (the analytical rollups,
// through LoggedCounts, adapted in app) over RatioWindow. A Coverer, run
// by processors/explaining beside the auto-explainer, recomputes the
// ratios and stores each, the store taking a trust snapshot when a ratio
// changes.
//
// It imports the platform only; it must not import the event log, the
// analytical store or an engine.
package coverage
