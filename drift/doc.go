// Package drift is drift detection: POST /drift/detect, which tests each
// feature's current values against its reference values, the per-model
// drift configuration behind /drift-config, uploaded references and the
// reports of scheduled runs. The statistics are
// stats/stattest's; this package reads the request, decides what to
// run for each feature, runs features in parallel and grades the result.
//
// ParseRequest checks a body's shape; Detector.Detect reads each feature's
// arrays, runs its tests and grades it (how, step by step, is on Detect).
//
// # Configuration
//
// Config is stored per model (Store). Presets low, medium and high set
// every threshold and the severity cutoffs together; medium is the
// default. Without a stored configuration, detection and GET use Default.
//
// # Reports
//
// The processor role's schedule (processors/schedule) writes Reports:
// data drift of the inputs and prediction drift of the outputs with
// Detector.FromProfiles, each window compared with a reference window of
// logged predictions or with the Uploaded reference (PUT
// /drift/reference/{model_id}, kept as profiles); and concept drift, a
// quality metric against its baseline, judged by JudgeConcept (see
// ConceptDriftConfig for where the figures come from).
//
// It imports identity, registry, the platform, the store errors and the
// maths tree; it must not import the event log, the analytical store, an
// engine, the processors or the query API.
package drift
