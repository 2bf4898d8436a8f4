#!/usr/bin/env python3
"""Generate cart_golden.json: scikit-learn's DecisionTreeRegressor beside forest.FitCART.

Pinned versions (the venv of stats/shap/testdata/generate.py):

    /root/.cache/vigil-engines/explain/bin/pip install scikit-learn==1.9.1 numpy==2.4.6
    /root/.cache/vigil-engines/explain/bin/python stats/forest/testdata/cart_golden.py

Each case fits DecisionTreeRegressor(criterion="squared_error", splitter="best", max_depth=6,
min_samples_leaf=10, random_state=0) on the training rows and records its predictions on the
held-out rows, its node and leaf counts and its depth. scikit-learn compares inputs in float32,
so every input here is a float32 value (written as the float64 it is exactly): FitCART, which
compares in float64, then sees the same numbers, and both take thresholds midway between
adjacent values.

  smooth:  4 uniform features, y = 2 x0 + sin(6 x1) + x2 x3 + noise (a tree approximates it)
  step:    3 uniform features, y = 1 when x0 > 0.5 and x1 < 0.3, else 0 (a tree fits it)
  coarse:  3 features on a grid of 0.1 (many equal values), y = x0 - 2 x1 + noise
"""
import json
import os

import numpy as np
from sklearn.tree import DecisionTreeRegressor

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_DEPTH, MIN_LEAF = 6, 10


def case(name, X, y, train):
    X = X.astype(np.float32).astype(np.float64)
    hold = ~train
    t = DecisionTreeRegressor(max_depth=MAX_DEPTH, min_samples_leaf=MIN_LEAF, random_state=0)
    t.fit(X[train], y[train])
    return {
        "name": name,
        "train_x": X[train].tolist(),
        "train_y": y[train].tolist(),
        "holdout_x": X[hold].tolist(),
        "predictions": t.predict(X[hold]).tolist(),
        "nodes": int(t.tree_.node_count),
        "leaves": int(t.get_n_leaves()),
        "depth": int(t.get_depth()),
    }


def main():
    rng = np.random.default_rng(16)
    cases = []
    n = 800
    train = np.arange(n) % 5 != 4
    X = rng.random((n, 4))
    y = 2 * X[:, 0] + np.sin(6 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=n)
    cases.append(case("smooth", X, y, train))
    X = rng.random((n, 3))
    Xf = X.astype(np.float32).astype(np.float64)
    y = ((Xf[:, 0] > 0.5) & (Xf[:, 1] < 0.3)).astype(np.float64)
    cases.append(case("step", X, y, train))
    X = np.round(rng.random((n, 3)) * 10) / 10
    y = X[:, 0] - 2 * X[:, 1] + 0.05 * rng.normal(size=n)
    cases.append(case("coarse", X, y, train))
    out = {"max_depth": MAX_DEPTH, "min_leaf": MIN_LEAF, "cases": cases}
    with open(os.path.join(HERE, "cart_golden.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
