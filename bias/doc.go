// Package bias is the fairness audit API: POST /bias/audit accepts an
// audit and answers 202, a Runner computes it in the background with
// processors/fairness, and GET /bias/audits/{audit_id} and GET
// /bias/audits read it back. This package reads the request, gathers the
// data, stores the audit and shapes the result; the statistics are
// fairness's.
//
// # Request forms
//
// Both forms share one route and are told apart by their fields:
// any of sensitive_attributes, y_true, y_pred, group_data or
// metrics_to_compute makes the label-supplied form, which then may hold
// no field of the logged-predictions form (protected_attributes, metrics,
// prediction_field, label_field, start_date, end_date), and the other way
// round; the first such field is named in a 422. model_id, threshold,
// reference_group and favourable_label belong to both.
//
// The label-supplied form takes its arrays from the body: y_pred sets the
// row count; y_true and every group_data column must match it (a 422 names
// the array whose length differs).
//
// The logged-predictions form reads the model's stored predictions through
// query.Store.EachPrediction: the newest MaxRows (1,000,000) within
// start_date and end_date. Per prediction, each protected attribute is
// input_data's top-level field of that name, else metadata's (absent,
// null, an object or an array is a missing value); the prediction is
// output_data's prediction_field (default "prediction"), or output_data
// itself when it is not an object (predictions without one are skipped
// and counted); the label is metadata's, else input_data's, field "label",
// then "y_true" (or label_field). Label-based metrics need every audited
// prediction labelled: otherwise they are reported not computed, with a
// recommendation saying how many were.
//
// Outcomes: with favourable_label, a prediction or label is favourable
// exactly when it equals it (same JSON type); without, 1 and true are
// favourable, 0 and false unfavourable and anything else is an error.
//
// # Threshold
//
// The request's single threshold t in (0, 1), default 0.8, is mapped onto
// every pass condition (Thresholds): demographic parity within [t, 2 − t],
// disparate impact at least t, equal opportunity and equalized odds
// differences below (1 − t)/2. At 0.8 these are exactly the spec's.
//
// # Lifecycle
//
// pending (stored and queued) → running → completed or failed. The Runner
// runs Workers audits at a time with Queue more waiting; a full queue
// answers 503 and stores the audit failed. It refreshes updated_at of the
// audits it holds every StaleAfter/4 and, on start and on each refresh,
// fails every pending or running audit whose updated_at is older than
// StaleAfter (2 minutes): those of a process that died. A process that
// stops cleanly fails its own at once. Failed audits are not re-run (the
// label-supplied arrays are not stored); the reason asks to resubmit.
//
// # Result
//
// Result follows the spec: overall_fairness_score, band, bias_detected,
// results keyed by metric ({passed, score, threshold, groups, ...}, groups
// keyed by attribute) and recommendations, plus severity, the groups'
// counts per attribute and labelled. A completed audit at high or
// critical severity goes to Runner.Governance when one is set.
package bias
