// Package view is what Vigil shows of completed explanations (spec 3,
// issue 16): the data of a plot, comparisons and a model's global
// importance, computed from the feature weights the explanation package
// stored.
//
// Plot data of one explanation (GET
// /explanations/{explanation_id}/visualization: waterfall, force,
// feature_importance; PlotOf) and of several (POST
// /explanations/visualization: summary, decision, dependence;
// MultiPlotOf); POST /explanations/compare (2-20 completed explanations of
// one model: feature_importance, instance_similarity, method_agreement);
// a model's global importance (GET /explanations/importance/{model_id}:
// spec 3's feature_importance, mean |SHAP| over its completed SHAP
// explanations, or LIME's with ?method=lime). The maths (GlobalImportance,
// Spearman, Cosine, Agree, Distance) is in views.go and agrees with numpy
// and scipy (testdata/views.py).
//
// It imports explanation (the records it reads), identity, registry and
// the platform; it must not import the event log, the analytical store or
// an engine.
package view
