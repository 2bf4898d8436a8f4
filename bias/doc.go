// Package bias is the fairness audit API: POST /bias/audit accepts an
// audit and answers 202, a Runner computes it in the background with
// stats/fairness, GET /bias/audits/{audit_id} and GET /bias/audits
// read it back, POST /bias/audits/{audit_id}/cancel cancels it and DELETE
// /bias/audits/{audit_id} deletes it. This package reads the request, gathers the
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
// row count, at most Runner.MaxRows; y_true and every group_data column
// must match it (a 422 names the array whose length differs).
//
// The logged-predictions form reads the model's stored predictions through
// analytics.Store.EachPrediction: the newest Runner.MaxRows (VIGIL_BIAS_MAX_ROWS,
// default MaxRows, 1,000,000) within start_date and end_date. Per prediction, each protected attribute is
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
// pending (stored and queued) → running → completed, failed or cancelled;
// the last three are final: the store writes no finished audit again. The
// Runner runs Workers audits at a time with Queue more waiting
// (VIGIL_BIAS_WORKERS, default 2; VIGIL_BIAS_QUEUE, default 64); a full
// queue answers 503 and stores the audit failed. It refreshes updated_at
// of the audits it holds every StaleAfter/4 and, on start and on each
// refresh, fails every pending or running audit whose updated_at is older
// than StaleAfter (2 minutes): those of a process that died. A process
// that stops cleanly fails its own at once. Failed audits are not re-run
// (the label-supplied arrays are not stored); the reason asks to resubmit.
//
// # Cancel and delete
//
// POST /bias/audits/{audit_id}/cancel stores a pending or running audit
// cancelled and answers it (200; again 200 for a cancelled one, so a
// retry succeeds); a completed or failed audit answers 409 naming its
// status in details.status. DELETE /bias/audits/{audit_id} answers 204
// whatever the status: users deleting an audit want it gone, so a pending
// or running one is deleted at once, as if cancelled, rather than refused.
// Either way the Runner of the process serving the call stops the work
// (a queued audit never starts, a running one's read is cut short); a
// replica running it stops it at its next heartbeat (StaleAfter/4), and
// discards the outcome should it finish first, since the store completes
// no audit that is cancelled or gone. Another
// organization's audit answers 404 like a missing one.
//
// # Governance events
//
// An audit completed at high or critical severity owes a governance event
// (governance.Event, event id and source id the audit's id) for the risk
// register: the write that completes it sets GovernancePending, the
// Runner then appends the event to Runner.Events and clears the flag, and
// on start and every refresh (StaleAfter/4, 30 s) appends again whatever
// is still owed (governance.Outbox, shared with drift reports). The refresh
// loop is the Runner's because it runs wherever audits run (the api role);
// every replica's Runner resends, and a double append is one event to its
// readers. Deleting an audit that still owes its event appends it first
// (503 while the log refuses it), so no finding is lost.
//
// # Result
//
// Result follows the spec: overall_fairness_score, band, bias_detected,
// results keyed by metric ({passed, score, threshold, groups, ...}, groups
// keyed by attribute) and recommendations, plus severity, the groups'
// counts per attribute and labelled.
//
// It imports the analytics contract (to read predictions), governance (for
// the events audits raise), identity, registry, the platform, the store
// errors and the maths tree; it must not import an engine, the processors
// or the query API.
package bias
