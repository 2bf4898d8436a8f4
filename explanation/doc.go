// Package explanation is Vigil's explanations of model predictions (spec
// 3, issue 16). So far: model access by uploaded artifact, PUT and GET
// /models/{model_id}/artifact. A linear model is its features,
// coefficients, intercept and link; a tree ensemble is an XGBoost JSON
// model, a LightGBM text model or scikit-learn trees in the export of
// stats/forest/testdata/export_sklearn.py. An artifact is validated when
// it is uploaded (the tree ensemble is parsed: 422 naming the field when
// it cannot be), capped in size, and kept in the transactional store, one
// per model; a new upload replaces it. Artifact.Compute explains one
// instance (Artifact.Instance reads it from JSON) with TreeSHAP, linear
// SHAP, Kernel SHAP or LIME and says whether the result is exact; the
// maths lives in stats/shap and stats/lime.
//
// Explanations of spec 3: POST /explanations/generate checks an instance
// (and background rows) against the model's artifact and stores a pending
// Explanation; GET /explanations/{explanation_id} and GET /explanations
// read them. A Runner in the API role computes pending explanations,
// reading them from the Store, so that one accepted before a restart is
// computed after it. Methods: shap (the exact method the artifact
// allows), shap_kernel (spec 3's name; kernel_shap is read as it), lime.
// A request takes spec 3's num_features (top_features' length),
// num_samples (the sampled methods' sample size), config
// (background_samples, max_features) and Vigil's seed (options.go): the
// sampled methods draw from the request's seed, else DefaultSeed of the
// model, so one request and seed give the same values; the record
// answers spec 3's result and instance form. A request may name a logged prediction
// (prediction_id) instead of an instance: its input_data is read through
// Predictions (the analytical store, adapted in app) and the explanation
// keeps the id (GET /explanations/by-prediction/{prediction_id}). Each
// model has a Config (GET/PUT /explanations/config/{model_id}): enabled
// and default_method are applied by generate; GET /explanations/stats
// counts a model's explanations.
//
// Background rows: a method that needs them (kernel_shap, lime, linear
// SHAP, every method of a served model) takes the request's, else the
// sample of the model's uploaded drift reference (ReferenceSample: the
// transactional store's drift.Sample), else the inputs of its newest
// logged predictions (a surrogate's training rows); rows the request path
// would refuse are skipped, and the outcome states BackgroundSource and
// BackgroundRows. Path-dependent TreeSHAP takes none.
//
// Auto-explain (issue 16 point 4): the AutoExplainer, run by the
// processor role over a consumer group of its own
// (processors/explaining), explains a sampled share of the logged
// predictions of each model with auto_explain on (Config.AutoExplainRate,
// chosen by a hash of the prediction id), within a budget of work per
// second, one explanation per prediction (origin auto). The Coverer
// keeps each such model's explained_predictions_ratio, explained
// predictions (the explanations in the transactional store) over logged
// ones (the analytical rollups, through LoggedCounts) over RatioWindow,
// which the trust score reads as its explainability input.
//
// Cache (spec 3's use_cache): generate answers a request from the cache
// (platform/kvcache: Redis when configured, in process otherwise) when an
// identical one, keyed on model, artifact version, method, instance,
// background rows (with their source when not the request's), seed and
// num_samples, was computed within the model's cache_ttl_hours; the
// explanation is then stored completed at once and says cached.
//
// Bulk and views: POST /explanations/bulk (up to 100 instances, checked
// all before any is stored), POST /explanations/compare (2-20:
// feature_importance, instance_similarity, method_agreement), plot data
// of one explanation (GET /explanations/{explanation_id}/visualization:
// waterfall, force, feature_importance) and of several (POST
// /explanations/visualization: summary, decision, dependence), and a
// model's global importance (GET /explanations/importance/{model_id}:
// spec 3's feature_importance, mean |SHAP| over its completed SHAP
// explanations, or LIME's with ?method=lime); the maths is in
// views.go and plots.go. Jobs: POST
// /explanations/{explanation_id}/cancel cancels a pending one; progress is
// 0 while pending, 1 once final.
//
// A model without an artifact is
// explained through its serving endpoint (ServingAPI: PUT, GET and DELETE
// /models/{model_id}/serving; Kernel SHAP and LIME call it through
// explanation/modelserver, batched, within a timeout and a request
// budget, headers sealed; a V2 answer's output is read by name when the
// endpoint names one) or else through a Surrogate fitted on its logged
// predictions (Logged, adapted in app) when the explanation runs: a
// linear model and a regression tree (forest.FitCART), the one with the
// higher held-out fidelity kept; every outcome states its model access
// (artifact, served, surrogate) and a surrogate its kind and fidelity.
//
// It imports identity, registry, the platform, the store errors and the
// maths tree; it must not import the event log, the analytical store, an
// engine or another API package.
package explanation
