// Package shap computes SHAP values: per feature, its contribution to one
// prediction, with a base value such that base + the sum of the
// contributions equals the model's output (additivity, checked on every
// result: Check).
//
//   - Tree computes exact values for a forest.Ensemble with TreeSHAP
//     (Lundberg et al. 2020, Algorithm 2), path-dependent (the covers stand
//     in for the data: shap.TreeExplainer(model,
//     feature_perturbation="tree_path_dependent")) or, with a background
//     set, interventional (each background row in turn replaces the absent
//     features; the average over the rows:
//     feature_perturbation="interventional"). Values are of the raw output
//     (the margin), as shap's model_output="raw". TreeExplainer gives
//     Tree's values for many rows: per-leaf tables built once, rows split
//     across cores.
//   - Linear computes exact values for a linear model over a background
//     mean: coefficient × (x − mean), of the margin for either link, as
//     shap.LinearExplainer with feature_perturbation="interventional".
//   - Kernel explains any model given as a batch function, against a
//     background set: every coalition enumerated when there are at most
//     ExactFeatures varying features (equal to shap.KernelExplainer to
//     1e-9), sampled coalitions with the Shapley kernel's weights otherwise.
//     KernelTree is Kernel for a forest.Ensemble's raw output with the same
//     numbers up to the order of additions (1e-12): instead of evaluating
//     coalitions × background hybrid rows, it walks each tree once per
//     coalition carrying the set of background rows (64 to a uint64) that
//     reach each node, and adds each leaf's value times the rows reaching it.
//
// Figures match shap 0.49.1 (testdata/generate.py pins it and writes the
// golden files golden_test.go reads).
//
// It imports nothing of Vigil but the maths tree: the maths tree stands
// alone.
package shap
