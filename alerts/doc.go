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
// # Instances and their moves
//
// The evaluation (processors/alerting) opens an instance when a rule holds
// for a model. A rule, model and condition set (Rule.ConditionKey) has at
// most one instance that is not resolved; while the rule keeps holding,
// each newly evaluated window updates it (observations, count, window_end,
// last_triggered_at) rather than opening another. The states and the
// operations that move them:
//
//	from                          operation (who)                  to
//	(none)                        trigger (evaluation)             open
//	open, snoozed                 acknowledge (user)               acknowledged
//	open, acknowledged, snoozed   snooze until a time (user)       snoozed
//	open, acknowledged, snoozed   resolve (user)                   resolved
//	snoozed, its time passed      reopen (evaluation: still holds) open
//	open, acknowledged, snoozed   auto_resolve (evaluation: a      resolved
//	                              complete window where it no
//	                              longer holds)
//
// resolved is final; any other move answers 409 naming the status and the
// statuses the move starts from. Deleting a rule resolves its instances
// (note "rule deleted") and keeps them. Every move is appended to the
// instance's history with the user (SystemUser for the evaluation), the
// time and, for a snooze, its end. After an instance is resolved, the
// rule opens no new one for the model until cooldown_minutes have passed.
//
// It imports the analytics contract (the rollups a dry run reads), drift
// and bias (their reports and audits feed the drift_score and
// fairness_score metrics), identity, registry, the
// platform and the store errors; it must not import an engine, the
// processors or the query API.
package alerts
