// Package artifact is a model's uploaded form and the explanations it
// computes (spec 3, issue 16): PUT and GET /models/{model_id}/artifact.
// A linear model is its features, coefficients, intercept and link; a
// tree ensemble is an XGBoost JSON model, a LightGBM text model or
// scikit-learn trees in the export of
// stats/forest/testdata/export_sklearn.py. An artifact is validated when
// it is uploaded (the tree ensemble is parsed: 422 naming the field when
// it cannot be), capped in size, and kept in the transactional store
// (Store), one per model; a new upload replaces it.
//
// Artifact.Compute explains one instance (Artifact.Instance reads it from
// JSON) with TreeSHAP, linear SHAP, Kernel SHAP or LIME and says whether
// the Result is exact; Agnostic runs Kernel SHAP or LIME over any model
// (a served one). The sampled methods draw as Sampling says, and report
// their Progress to a Reporter. Parsed ensembles and LIME's perturbation
// samples are shared between explanations (ensembles.go, limesample.go).
// The maths lives in stats/shap, stats/lime and stats/forest.
//
// It imports explanation/serving (the feature-name rule), identity,
// registry, the platform, the store errors and the maths tree; it must
// not import explanation, the event log, the analytical store or an
// engine.
package artifact
