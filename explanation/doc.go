// Package explanation is Vigil's explanation jobs (spec 3, issue 16):
// which features drove a prediction, by TreeSHAP, linear SHAP, Kernel
// SHAP or LIME.
//
// A model is reached in one of three ways, and every outcome says which:
// its uploaded artifact (explanation/artifact, which also computes), its
// serving endpoint (explanation/serving, called through
// explanation/modelserver), or else a Surrogate fitted on its logged
// predictions (Access).
//
// POST /explanations/generate checks an instance, or a logged prediction
// named by prediction_id, against the model and stores a pending
// Explanation; explainjob.Runner computes pending explanations from the
// Store (Execute), so one accepted before a restart is computed after it.
// GET /explanations[/{explanation_id}], GET
// /explanations/by-prediction/{prediction_id}, GET /explanations/stats and
// POST /explanations/{explanation_id}/cancel read and cancel them; POST
// /explanations/bulk takes up to 100 instances, checked all before any is
// stored. Methods: shap (the exact method the artifact allows),
// shap_kernel (kernel_shap is read as it), lime; the sampled methods draw
// from the request's seed, else the model's DefaultSeed, so one request
// and seed give the same values (options.go). Each model has a Config
// (GET/PUT /explanations/config/{model_id}). The notes on the rest sit on
// the code: background rows on Access.fallbacks, the cache (use_cache) on
// plan.cacheKey.
//
// Plots, comparisons and global importance are explanation/view's;
// auto-explain is explanation/autoexplain's, the explained-predictions
// ratio the trust score reads explanation/coverage's.
//
// It imports explanation/artifact and explanation/serving, identity,
// registry, the platform, the store errors and the maths tree; it must not
// import the event log, the analytical store, an engine or another API
// package.
package explanation
