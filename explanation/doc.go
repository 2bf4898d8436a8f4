// Package explanation is Vigil's explanations of model predictions (spec
// 3, issue 16): which features drove a prediction, by TreeSHAP, linear
// SHAP, Kernel SHAP or LIME (the maths lives in stats/shap and
// stats/lime).
//
// A model is reached in one of three ways, and every outcome says which:
// an uploaded artifact (PUT and GET /models/{model_id}/artifact: a linear
// model, an XGBoost JSON or LightGBM text model, or scikit-learn trees as
// stats/forest/testdata/export_sklearn.py exports them; validated on
// upload, one per model), its serving endpoint (explanation/serving,
// called through explanation/modelserver), or else a Surrogate fitted on
// its logged predictions (Access). Artifact.Compute explains one instance and says
// whether the result is exact.
//
// POST /explanations/generate checks an instance, or a logged prediction
// named by prediction_id, against the model and stores a pending
// Explanation; explainjob.Runner computes pending explanations from the
// Store (Execute), so one accepted before a restart is computed after it;
// GET
// /explanations[/{explanation_id}], GET
// /explanations/by-prediction/{prediction_id}, GET /explanations/stats and
// POST /explanations/{explanation_id}/cancel read and cancel them. Methods:
// shap (the exact method the artifact allows), shap_kernel (kernel_shap is
// read as it), lime; the sampled methods draw from the request's seed,
// else the model's DefaultSeed, so one request and seed give the same
// values (options.go). Each model has a Config (GET/PUT
// /explanations/config/{model_id}).
//
// POST /explanations/bulk takes up to 100 instances, checked all before
// any is stored. Plots, comparisons and global importance are
// explanation/view's. The notes on the rest sit on the code: background
// rows on Access.fallbacks, the cache (use_cache) on plan.cacheKey.
// Auto-explain is explanation/autoexplain's, the explained-predictions
// ratio the trust score reads explanation/coverage's.
//
// It imports identity, registry, the platform, the store errors and the
// maths tree; it must not import the event log, the analytical store, an
// engine or another API package.
package explanation
