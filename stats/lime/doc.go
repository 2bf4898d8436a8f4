// Package lime fits LIME's local surrogate (Ribeiro et al. 2016) for
// tabular data, as lime.lime_tabular.LimeTabularExplainer does once its
// perturbation sample is drawn: the sample's rows in the explainer's
// scaled space (row 0 is the explained instance), the model's outputs on
// them, the exponential kernel sqrt(exp(−d²/width²)) over Euclidean
// distances to row 0 (default width 0.75·√features), feature selection
// ("auto": forward selection up to 6 features, highest weights above;
// "none"; "forward_selection"; "highest_weights"), then a weighted ridge
// regression (alpha 1, intercept) on the selected features. The result is
// the intercept, each selected feature's weight, the weighted R² (score)
// and the surrogate's prediction at the instance, equal to lime 0.2.0.1's
// explain_instance given the same sample (testdata/generate.py in
// stats/shap writes the golden file).
//
// Sample draws a perturbation sample the way lime does (normal draws
// scaled by the training columns' standard deviation around their mean,
// or around the instance), with Go's generator: the same distribution, not
// the same numbers as NumPy's.
//
// It imports nothing of Vigil: the maths tree stands alone.
package lime
