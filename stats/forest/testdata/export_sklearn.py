#!/usr/bin/env python3
"""Export a fitted scikit-learn tree model as Vigil's sklearn_json artifact.

    python export_sklearn.py model.joblib > model.json     # or: from export_sklearn import export

Written for scikit-learn 1.9 (it reads only the public tree_ arrays, which
have been stable since 1.3). Supported: DecisionTreeRegressor,
RandomForestRegressor, ExtraTreesRegressor, RandomForestClassifier and
ExtraTreesClassifier (binary: the output is P(class 1), averaged over the
trees), GradientBoostingRegressor and GradientBoostingClassifier (binary:
the output is the log-odds). The format, read by Go's forest.ParseSklearn:

    {
      "format": "vigil-sklearn-trees", "version": 1,
      "estimator": "RandomForestRegressor",     # the class name, for people
      "n_features": 5,
      "feature_names": ["a", ...],              # or [] when fitted on an array
      "base": 0.0,                              # added once to the output
      "scale": 0.01,                            # multiplies every tree's value
      "link": "identity" | "logit",             # output -> prediction
      "trees": [{
        "children_left": [...], "children_right": [...],   # -1 on a leaf
        "feature": [...], "threshold": [...],             # split: x <= threshold goes left
        "missing_go_to_left": [...],                      # 0/1, where NaN goes
        "value": [...],                                   # the node's output
        "weighted_n_node_samples": [...]                  # the node's cover
      }, ...]
    }

Inputs are compared in float32, as scikit-learn does.
"""

import json
import sys

import numpy as np


def _tree(t, value):
    n = t.node_count
    missing = getattr(t, "missing_go_to_left", None)
    if missing is None:
        missing = np.zeros(n, dtype=np.uint8)
    return {
        "children_left": t.children_left.tolist(),
        "children_right": t.children_right.tolist(),
        "feature": [int(f) if l >= 0 else -1 for f, l in zip(t.feature, t.children_left)],
        "threshold": [float(x) if l >= 0 else 0.0 for x, l in zip(t.threshold, t.children_left)],
        "missing_go_to_left": [int(x) for x in missing],
        "value": [float(v) for v in value],
        "weighted_n_node_samples": t.weighted_n_node_samples.astype(np.float64).tolist(),
    }


def _proba(t):
    v = t.value[:, 0, :]
    if v.shape[1] != 2:
        raise ValueError("only binary classifiers are supported")
    # scikit-learn >= 1.4 stores fractions; older versions counts.
    return v[:, 1] / v.sum(axis=1)


def export(model):
    name = type(model).__name__
    names = [str(x) for x in getattr(model, "feature_names_in_", [])]
    out = {"format": "vigil-sklearn-trees", "version": 1, "estimator": name,
           "n_features": int(model.n_features_in_), "feature_names": names,
           "base": 0.0, "scale": 1.0, "link": "identity", "trees": []}
    if name == "DecisionTreeRegressor":
        out["trees"] = [_tree(model.tree_, model.tree_.value[:, 0, 0])]
    elif name in ("RandomForestRegressor", "ExtraTreesRegressor"):
        out["trees"] = [_tree(e.tree_, e.tree_.value[:, 0, 0]) for e in model.estimators_]
        out["scale"] = 1.0 / len(model.estimators_)
    elif name in ("RandomForestClassifier", "ExtraTreesClassifier"):
        out["trees"] = [_tree(e.tree_, _proba(e.tree_)) for e in model.estimators_]
        out["scale"] = 1.0 / len(model.estimators_)
    elif name in ("GradientBoostingRegressor", "GradientBoostingClassifier"):
        if model.estimators_.shape[1] != 1:
            raise ValueError("only one output (regression or binary classification) is supported")
        x0 = np.zeros((1, model.n_features_in_))
        out["base"] = float(model._raw_predict_init(x0)[0, 0])
        out["scale"] = float(model.learning_rate)
        out["trees"] = [_tree(e.tree_, e.tree_.value[:, 0, 0]) for e in model.estimators_[:, 0]]
        if name == "GradientBoostingClassifier":
            out["link"] = "logit"
    else:
        raise ValueError(f"{name} is not supported")
    return out


if __name__ == "__main__":
    import joblib

    json.dump(export(joblib.load(sys.argv[1])), sys.stdout)
