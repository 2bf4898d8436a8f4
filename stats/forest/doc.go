// Package forest is a tree-ensemble model (gradient-boosted trees and
// random forests) and the parsers that read one from the formats Vigil
// accepts as an uploaded artifact: XGBoost's JSON model (save_model of a
// .json name), LightGBM's text model (save_model / model_to_string) and
// scikit-learn trees in the JSON export that testdata/export_sklearn.py
// writes (documented there and on ParseSklearn).
//
// An Ensemble predicts one raw output (the margin: log-odds for a binary
// classifier, the value itself for a regressor): Base plus the sum of each
// tree's leaf value, times Scale (1/number of trees for a forest that
// averages). Each Tree keeps, per node, the split feature, the threshold,
// the comparison (XGBoost sends x < t left, LightGBM and scikit-learn
// x <= t), where a missing value (NaN) goes, the leaf value and the
// node's cover (the training weight that reached it), which
// path-dependent TreeSHAP needs.
//
// Raw walks one row down the nodes; RawRows evaluates many rows on a flat
// copy of the trees (16-byte nodes, children side by side, made on its
// first call) in blocks of 64 rows taken level by level, with the same
// numbers bit for bit. Random makes random valid ensembles for property
// tests. FitCART grows a regression tree by CART (scikit-learn's
// DecisionTreeRegressor rules, checked against it on a golden file) as an
// Ensemble of one tree.
//
// Inputs of XGBoost and scikit-learn models are compared in float32, as
// those libraries (and shap) do; LightGBM compares in float64.
// Categorical splits and multi-output models are refused (ErrInvalid) for
// now.
//
// It imports nothing of Vigil: the maths tree stands alone.
package forest
