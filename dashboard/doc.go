// Package dashboard serves the figures of the dashboard's first page:
// GET /dashboard/statistics (the spec's models, predictions, alerts and
// drift figures) and GET /executive-dashboard/risk-register, a live heat
// map computed from alert data. The heat map is read-only, with no owners,
// workflow or history: it is not the risk register (governance keeps
// that).
//
// # Figures
//
//   - models: total, active (status active) and inactive (every other
//     status, archived included).
//   - predictions: total stored, today (since 00:00 UTC) and avg_per_day
//     (the total over the whole days since the oldest model was
//     registered, at least one), from the analytical store's rollups.
//   - alerts: active (open or snoozed: nobody is on it), acknowledged and
//     resolved, over every alert of the organization.
//   - drift: models_with_drift (models whose newest drift report of the
//     last 7 days detected drift) and high_severity (those of them at high
//     severity).
//
// # Heat map
//
// Each model with an alert triggered in the last 30 days lands in one cell
// of likelihood (how many alerts it raised: rare 1, occasional 2-3, likely
// 4-9, frequent 10 or more) by impact (the highest severity among them:
// low, medium, high, critical). Cells list their models with the counts
// and how many of their alerts are unresolved.
//
// It imports the analytics contract, alerts, drift, identity, registry,
// the platform and the store errors; it must not import an engine.
package dashboard
