// Package drift is drift detection: POST /drift/detect, which tests each
// feature's current values against its reference values, the per-model
// drift configuration behind /drift-config, uploaded references and the
// reports of scheduled runs. The statistics are
// stats/stattest's; this package reads the request, decides what to
// run for each feature, runs features in parallel and grades the result.
//
// # Detection
//
// ParseRequest checks a body's shape and locates each feature's two JSON
// arrays without reading them; Detector.Detect then reads the arrays
// (numbers straight into []float64, strings and booleans into
// per-category counts, never through []any) and tests the features,
// GOMAXPROCS at a time.
//
// A feature holding numbers is numeric; one holding strings or booleans is
// categorical. null, "" and NaN (as Python's json module writes it) are
// missing values: left out and counted per side. The method is, in order:
// the request's config.method, the feature's FeatureConfig.Method, else
// KS for numeric and ChiSquared for categorical features. The threshold is
// the request's config.threshold, the feature's FeatureConfig.Threshold,
// else the model's Thresholds for the method (the medium preset when the
// model has no configuration).
//
//	method         drift_score                      p_value  drift when
//	ks_test        KS statistic D, [0, 1]           yes      p_value < threshold
//	chi_squared    Cramér's V = sqrt(χ²/N), [0, 1]  yes      p_value < threshold
//	psi            PSI (natural log), >= 0          null     drift_score >= threshold
//	js_divergence  JS distance (base 2), [0, 1]     null     drift_score >= threshold
//
// Numeric features under chi_squared, psi or js_divergence are cut into ten
// bins at the reference's deciles (stattest.Numeric.Bin). A detected drift
// is graded by its score with Thresholds.Severity (Cutoffs.Grade); an
// undetected one is low. The overall drift score is the share of tested
// features that drifted; the result drifts when any feature did, and its
// severity is the highest.
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
