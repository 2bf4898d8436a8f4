// Package alerts is the alerting API and its model: rules an organization
// defines (POST/GET /alerts/rules, GET/PATCH/DELETE
// /alerts/rules/{rule_id}), the catalogue of metric names their
// conditions test (GET /alerts/metrics), the dry run (POST
// /alerts/rules/{rule_id}/evaluate) and the alert instances the
// processors' evaluation raises (GET /alerts/instances,
// GET /alerts/instances/{alert_id}, acknowledge, resolve, snooze).
//
// # Rules
//
// A rule has a name, an alert_type, a severity, an optional model_id (none:
// every model of the organization that is not archived), conditions (each
// {metric_name, operator, threshold, window_minutes}; all must hold),
// notification_channels ({type, target}: webhook, slack, email), enabled
// and cooldown_minutes. A rule may be managed by another resource
// (managed_by): a drift configuration's alert_config becomes one rule
// (DriftRule) that the transactional store creates, changes and deletes
// in the drift configuration's own transaction; it is listed, read and
// evaluated like the others, and PATCH and DELETE on it answer 409 naming
// the configuration. A condition observes its metric (Catalogue) over
// the last window_minutes whole minutes; a window without data observes
// zero for counts and sums and no value otherwise, and a condition on no
// value does not hold.
//
// The evaluation (processors/alerting) opens an instance when a rule holds
// for a model, at most one unresolved per rule, model and condition set;
// its states and the moves between them are on Status. resolved is final.
//
// It imports the analytics contract (the rollups a dry run reads), drift
// and bias (their reports and audits feed the drift_score and
// fairness_score metrics), identity, registry, the
// platform and the store errors; it must not import an engine, the
// processors or the query API.
package alerts
