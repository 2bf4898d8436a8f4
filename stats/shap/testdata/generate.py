#!/usr/bin/env python3
"""Generate the golden files of stats/shap, stats/lime and stats/forest.

Pinned versions (the virtual environment the tests were generated with):

    python3 -m venv /root/.cache/vigil-engines/explain
    /root/.cache/vigil-engines/explain/bin/pip install shap==0.49.1 xgboost==2.1.4 \
        lightgbm==4.7.0 scikit-learn==1.9.1 lime==0.2.0.1 numpy==2.4.6
    /root/.cache/vigil-engines/explain/bin/python stats/shap/testdata/generate.py

The tests do not need Python: the outputs are committed.

Writes:
  stats/forest/testdata/models/*       the models (XGBoost JSON, LightGBM text, the
                                       scikit-learn export of export_sklearn.py)
  stats/forest/testdata/margins.json   each library's own raw output on the rows
  stats/shap/testdata/golden.json      shap's values: TreeSHAP path-dependent and
                                       interventional, LinearExplainer, KernelExplainer
  stats/lime/testdata/golden.json      lime's LimeTabularExplainer, with the
                                       perturbation sample it drew

Notes on the reference figures:
  - For XGBoost and LightGBM, shap.TreeExplainer(feature_perturbation=
    "tree_path_dependent") without data hands the work to the library's own
    TreeSHAP (pred_contribs), which XGBoost computes in float32. The golden
    figures force shap's own C++ TreeSHAP in float64 (model_type "internal"),
    the same algorithm; the float32 figures are kept too ("native") and checked
    to 1e-5.
  - KernelExplainer is called with l1_reg=False (no feature selection) and its
    default sample count, 2M+2048, which enumerates every coalition for M <= 11.
  - Missing values are written as null.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "forest", "testdata"))

import lightgbm as lgb  # noqa: E402
import lime  # noqa: E402
import lime.lime_tabular  # noqa: E402
import shap  # noqa: E402
import sklearn  # noqa: E402
import xgboost as xgb  # noqa: E402
from export_sklearn import export  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FOREST = os.path.join(HERE, "..", "..", "forest", "testdata")
LIME = os.path.join(HERE, "..", "..", "lime", "testdata")
MODELS = os.path.join(FOREST, "models")


def rows(a):
    return [[None if np.isnan(v) else float(v) for v in r] for r in np.asarray(a, dtype=np.float64)]


def floats(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def data(n, m, seed, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    X[:, 2] = np.round(X[:, 2] * 2) / 2  # ties on thresholds
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.5 * (X[:, 3] > 0.3) + 0.1 * rng.normal(size=n)
    if nan:
        X[rng.random(size=(n, m)) < 0.05] = np.nan
    return X, y


def tree_case(name, kind, model, file, X, bg, native_margin, clf_index=None):
    out = {"name": name, "kind": kind, "file": file, "rows": rows(X), "background": rows(bg)}
    e = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")
    if e.model.model_type in ("xgboost", "lightgbm"):
        native = e.shap_values(X)
        out["native"] = {"base": float(np.ravel(e.expected_value)[-1]), "values": rows(native)}
        e = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")
        e.model.model_type = "internal"
    sv = e.shap_values(X, check_additivity=False)
    if clf_index is not None and np.ndim(sv) == 3:
        sv = sv[:, :, clf_index]
    pred = np.asarray(e.model.predict(X), dtype=np.float64)
    if pred.ndim == 2:
        pred = pred[:, -1 if clf_index is None else clf_index]
    # shap's expected_value without data is not the covers' mean for every
    # library (for XGBoost it is the base score alone): the reference base is
    # shap's own float64 output minus the sum of its values (additivity).
    out["path"] = {"base": float(pred[0] - np.sum(sv[0])), "output": floats(pred), "values": rows(sv)}
    e2 = shap.TreeExplainer(model, data=bg, feature_perturbation="interventional")
    sv2 = e2.shap_values(X, check_additivity=False)
    base2 = np.ravel(e2.expected_value)
    if clf_index is not None and np.ndim(sv2) == 3:
        sv2, base2 = sv2[:, :, clf_index], base2[clf_index:]
    # shap's interventional TreeSHAP keeps its partial sums in float32
    # (tree_shap_indep's pos_lst/neg_lst and calc_weight), so it agrees with
    # exact values to about 1e-7 only. The exact reference in float64 is
    # KernelExplainer over shap's own float64 tree predictor with the same
    # background: with 5 features it enumerates every coalition, and the
    # game it solves is the interventional one.
    predict = e.model.predict if e.model.model_type == "internal" else shap.TreeExplainer(model).model.predict

    def f(A):
        p = np.asarray(predict(A), dtype=np.float64)
        return p if p.ndim == 1 else p[:, -1 if clf_index is None else clf_index]

    k = shap.KernelExplainer(f, bg)
    out["interventional_exact"] = {"base": float(k.expected_value),
                                   "values": rows(k.shap_values(X, l1_reg=False, silent=True))}
    out["interventional"] = {"base": float(base2[0] if clf_index is not None else base2[-1]), "values": rows(sv2)}
    out["margin"] = floats(native_margin)
    return out


def main():
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(LIME, exist_ok=True)
    X, y = data(400, 5, 16, nan=True)
    Xe = X[:20].copy()
    bg = X[20:60]
    yb = (y > np.median(y)).astype(int)
    Xs, ys = data(400, 5, 17)
    ysb = (ys > np.median(ys)).astype(int)
    Xse, bgs = Xs[:20], Xs[20:60]

    trees = []
    m = xgb.XGBRegressor(n_estimators=30, max_depth=4, learning_rate=0.3, random_state=0).fit(X, y)
    m.get_booster().save_model(os.path.join(MODELS, "xgb_reg.json"))
    trees.append(tree_case("xgb_reg", "xgboost_json", m, "xgb_reg.json", Xe, bg,
                           m.predict(Xe, output_margin=True)))
    m = xgb.XGBClassifier(n_estimators=30, max_depth=3, learning_rate=0.3, random_state=0).fit(X, yb)
    m.get_booster().save_model(os.path.join(MODELS, "xgb_bin.json"))
    trees.append(tree_case("xgb_bin", "xgboost_json", m, "xgb_bin.json", Xe, bg,
                           m.predict(Xe, output_margin=True)))
    m = lgb.LGBMRegressor(n_estimators=30, num_leaves=15, min_child_samples=5, verbose=-1, random_state=0).fit(X, y)
    m.booster_.save_model(os.path.join(MODELS, "lgb_reg.txt"))
    trees.append(tree_case("lgb_reg", "lightgbm_text", m.booster_, "lgb_reg.txt", Xe, bg,
                           m.predict(Xe, raw_score=True)))
    m = lgb.LGBMClassifier(n_estimators=30, num_leaves=15, min_child_samples=5, verbose=-1, random_state=0).fit(X, yb)
    m.booster_.save_model(os.path.join(MODELS, "lgb_bin.txt"))
    trees.append(tree_case("lgb_bin", "lightgbm_text", m.booster_, "lgb_bin.txt", Xe, bg,
                           m.predict(Xe, raw_score=True)))
    m = RandomForestRegressor(n_estimators=10, max_depth=5, random_state=0).fit(Xs, ys)
    json.dump(export(m), open(os.path.join(MODELS, "sk_rf_reg.json"), "w"))
    trees.append(tree_case("sk_rf_reg", "sklearn_json", m, "sk_rf_reg.json", Xse, bgs, m.predict(Xse)))
    m = RandomForestClassifier(n_estimators=10, max_depth=5, random_state=0).fit(Xs, ysb)
    json.dump(export(m), open(os.path.join(MODELS, "sk_rf_clf.json"), "w"))
    trees.append(tree_case("sk_rf_clf", "sklearn_json", m, "sk_rf_clf.json", Xse, bgs,
                           m.predict_proba(Xse)[:, 1], clf_index=1))
    m = GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(Xs, ysb)
    json.dump(export(m), open(os.path.join(MODELS, "sk_gbc.json"), "w"))
    trees.append(tree_case("sk_gbc", "sklearn_json", m, "sk_gbc.json", Xse, bgs, m.decision_function(Xse)))

    json.dump({"models": [{"name": t["name"], "kind": t["kind"], "file": t["file"], "rows": t["rows"],
                           "margin": t["margin"]} for t in trees]},
              open(os.path.join(FOREST, "margins.json"), "w"), indent=1)

    linear = []
    lr = LinearRegression().fit(Xs, ys)
    e = shap.LinearExplainer(lr, bgs)
    linear.append({"name": "linear_regression", "link": "identity", "coefficients": floats(lr.coef_),
                   "intercept": float(lr.intercept_), "background": rows(bgs), "rows": rows(Xse),
                   "base": float(np.ravel(e.expected_value)[0]), "values": rows(e.shap_values(Xse))})
    lg = LogisticRegression().fit(Xs, ysb)
    e = shap.LinearExplainer(lg, bgs)
    linear.append({"name": "logistic_regression", "link": "logit", "coefficients": floats(lg.coef_[0]),
                   "intercept": float(lg.intercept_[0]), "background": rows(bgs), "rows": rows(Xse),
                   "base": float(np.ravel(e.expected_value)[0]), "values": rows(e.shap_values(Xse))})

    kernel = []
    coef, icpt = lg.coef_[0], lg.intercept_[0]

    def logistic(A):
        return 1 / (1 + np.exp(-(A @ coef + icpt)))

    e = shap.KernelExplainer(logistic, bgs[:15])
    kernel.append({"name": "logistic_probability", "function": "logistic", "coefficients": floats(coef),
                   "intercept": float(icpt), "background": rows(bgs[:15]), "rows": rows(Xse[:5]),
                   "base": float(e.expected_value),
                   "values": rows(e.shap_values(Xse[:5], l1_reg=False, silent=True))})

    rng = np.random.default_rng(18)
    X8 = rng.normal(size=(30, 8))
    X8[:, 7] = 0.25  # never varies: phi 0

    def nonlinear(A):
        return A[:, 0] * A[:, 1] + np.tanh(A[:, 2] - A[:, 3]) + 0.5 * A[:, 4] ** 2 + A[:, 5] * A[:, 0] - A[:, 6] + A[:, 7]

    e = shap.KernelExplainer(nonlinear, X8[10:30])
    kernel.append({"name": "nonlinear8", "function": "nonlinear8", "background": rows(X8[10:30]),
                   "rows": rows(X8[:4]), "base": float(e.expected_value),
                   "values": rows(e.shap_values(X8[:4], l1_reg=False, silent=True))})

    json.dump({"versions": {"shap": shap.__version__, "xgboost": xgb.__version__, "lightgbm": lgb.__version__,
                            "sklearn": sklearn.__version__, "numpy": np.__version__},
               "trees": trees, "linear": linear, "kernel": kernel},
              open(os.path.join(HERE, "golden.json"), "w"), indent=1)

    # LIME: record the perturbation sample lime draws, through its base's
    # explain_instance_with_data.
    cases = []
    for name, discretize, num_features, mode in (("continuous_all", False, 5, "regression"),
                                                 ("continuous_top3", False, 3, "regression"),
                                                 ("quartile_all", True, 5, "classification"),
                                                 ("quartile_top2", True, 2, "classification")):
        ex = lime.lime_tabular.LimeTabularExplainer(Xs, mode=mode, discretize_continuous=discretize, random_state=7)
        seen = {}
        orig = ex.base.explain_instance_with_data

        def spy(neighborhood_data, neighborhood_labels, distances, label, nf, **kw):
            seen["data"], seen["labels"], seen["label"] = neighborhood_data, neighborhood_labels, label
            return orig(neighborhood_data, neighborhood_labels, distances, label, nf, **kw)

        ex.base.explain_instance_with_data = spy
        if mode == "regression":
            exp = ex.explain_instance(Xse[3], lambda A: A @ lr.coef_ + lr.intercept_ + np.sin(A[:, 2]),
                                      num_features=num_features, num_samples=300)
            label = 0
        else:
            exp = ex.explain_instance(Xse[3], lg.predict_proba, num_features=num_features, num_samples=300,
                                      labels=(1,))
            label = 1
        cases.append({"name": name, "kernel_width": float(np.sqrt(5) * 0.75), "num_features": num_features,
                      "scaled": rows(seen["data"]), "labels": floats(seen["labels"][:, seen["label"]]),
                      "intercept": float(exp.intercept[label]),
                      # for regression lime keeps the fit's weights under label 1
                      # and their negation under label 0
                      "weights": [[int(f), float(w)] for f, w in exp.local_exp[1]],
                      "score": float(exp.score if np.ndim(exp.score) == 0 else exp.score[label]),
                      "local_pred": float(np.ravel(exp.local_pred)[0])})
    json.dump({"versions": {"lime": "0.2.0.1", "sklearn": sklearn.__version__}, "cases": cases},
              open(os.path.join(LIME, "golden.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
