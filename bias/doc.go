// Package bias is the fairness audit API: POST /bias/audit accepts an
// audit and answers 202, a Runner computes it in the background with
// stats/fairness, GET /bias/audits/{audit_id} and GET /bias/audits
// read it back, POST /bias/audits/{audit_id}/cancel cancels it and DELETE
// /bias/audits/{audit_id} deletes it. This package reads the request, gathers the
// data, stores the audit and shapes the result; the statistics are
// fairness's.
//
// In short (the details sit on the code named): the request's two forms,
// label-supplied and logged predictions, share one route and are told
// apart by their fields (ParseRequest); its single threshold maps onto
// every pass condition, the spec's at 0.8 (Thresholds). An audit moves
// pending → running → completed, failed or cancelled, the last three
// final; audits of a process that died are failed after StaleAfter
// (Runner). Cancel answers 409 for a finished audit, delete answers 204
// whatever the status (API.cancel). An audit completed at high or critical
// severity appends a governance event through an outbox, so none is lost
// (GovernanceEvent). Another organization's audit answers 404.
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
