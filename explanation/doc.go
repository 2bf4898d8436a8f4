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
// maths lives in stats/shap and stats/lime. The explanations API of spec 3
// (generate, jobs, lists, configuration) is still to come.
//
// It imports identity, registry, the platform, the store errors and the
// maths tree; it must not import the event log, the analytical store, an
// engine or another API package.
package explanation
