"""The reference side of BenchmarkExplain (RESULTS.md, issue 16 point 6).

    python explain_reference.py prepare DIR    # train the model, write DIR/model.json, rows.json, background.json
    python explain_reference.py tree DIR       # shap.TreeExplainer(model).shap_values(X) over every row
    python explain_reference.py kernel DIR N M # shap.KernelExplainer on the first N rows, model M
    python explain_reference.py lime DIR N M   # lime's LimeTabularExplainer on the first N rows, model M
    python explain_reference.py predict DIR N M P  # the model's own predict over the first N rows, P passes

Each timing mode prints "seconds <wall> <cpu>", then "model <wall> <cpu>": the share of that
time spent inside the model (XGBoost's predict or the dot product), and writes the values it computed to
DIR/<mode>.json (kernel and lime: DIR/<mode>-<M>.json), which the Go benchmark compares with its own.
M is "xgboost" (the booster's margin) or "linear" (a least-squares line fitted on the same training
rows, DIR/linear.json: numpy's dot product, so that what is timed is the explainer, not the model).

The model: XGBoost 2.1.4 (hist, max_depth 8, 500 rounds, eta 0.05) trained on 20,000 rows of a
seeded synthetic regression over 10 features (interactions, a step and noise), so that the trees
are full: about 250 leaves each. Rows: 10,000 more rows of the same distribution; background: the
first 50 training rows (shap.sample would pick at random; a fixed slice is the same on both sides).

Reference calls, as a user of the libraries writes them:
  - tree:   shap.TreeExplainer(booster).shap_values(X). For an XGBoost model with the default
            feature_perturbation ("tree_path_dependent" without data) shap hands the work to
            XGBoost's own TreeSHAP: booster.predict(DMatrix(X), pred_contribs=True), in C++ with
            all the machine's threads (nthread defaults to every core). The script checks that it
            did (explainer.model.model_type == "xgboost" and the values equal pred_contribs').
  - kernel: shap.KernelExplainer(f, background).shap_values(x, nsamples="auto", l1_reg=False) with
            f the booster's margin (XGBoost's predict, all threads); 10 features: every coalition
            is enumerated (2M+2048 > 2^10), as Vigil does.
  - lime:   lime_tabular.LimeTabularExplainer(background, mode="regression",
            discretize_continuous=False, feature_selection="none").explain_instance(x, f,
            num_features=10, num_samples=5000), Vigil's settings.
Pinned: shap 0.49.1, xgboost 2.1.4, lime 0.2.0.1, numpy 2.4.6 (the explain venv of engines.sh).
"""
import json
import os
import sys
import time

import numpy as np

FEATURES = 10
TRAIN_ROWS = 20_000
ROWS = 10_000
BACKGROUND = 50


def data(rng, n):
    x = rng.standard_normal((n, FEATURES))
    y = (np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] + np.where(x[:, 3] > 0.3, 1.5, -0.5) + 0.5 * x[:, 4] ** 2
         - x[:, 5] * x[:, 6] * x[:, 7] + 0.3 * x[:, 8] + 0.2 * rng.standard_normal(n))
    return x, y


def prepare(d):
    import xgboost as xgb
    rng = np.random.default_rng(16)
    x, y = data(rng, TRAIN_ROWS)
    rows, _ = data(rng, ROWS)
    params = {"objective": "reg:squarederror", "max_depth": 8, "eta": 0.05, "tree_method": "hist",
              "min_child_weight": 0, "seed": 16}
    booster = xgb.train(params, xgb.DMatrix(x, label=y), num_boost_round=500)
    booster.save_model(os.path.join(d, "model.json"))
    with open(os.path.join(d, "rows.json"), "w") as f:
        json.dump(rows.tolist(), f)
    with open(os.path.join(d, "background.json"), "w") as f:
        json.dump(x[:BACKGROUND].tolist(), f)
    with open(os.path.join(d, "margin.json"), "w") as f:
        json.dump(booster.predict(xgb.DMatrix(rows), output_margin=True).astype(float).tolist(), f)
    coef, *_ = np.linalg.lstsq(np.c_[x, np.ones(len(x))], y, rcond=None)
    with open(os.path.join(d, "linear.json"), "w") as f:  # last: the benchmark prepares again without it
        json.dump({"coefficients": coef[:-1].tolist(), "intercept": float(coef[-1])}, f)


def load(d):
    import xgboost as xgb
    booster = xgb.Booster()
    booster.load_model(os.path.join(d, "model.json"))
    with open(os.path.join(d, "rows.json")) as f:
        rows = np.asarray(json.load(f))
    with open(os.path.join(d, "background.json")) as f:
        bg = np.asarray(json.load(f))
    return booster, rows, bg


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "prepare":
        prepare(d)
        return
    import shap
    import xgboost as xgb
    booster, rows, bg = load(d)
    n = int(sys.argv[3]) if len(sys.argv) > 3 else len(rows)
    rows = rows[:n]
    which = sys.argv[4] if len(sys.argv) > 4 else "xgboost"
    name = mode if mode == "tree" else f"{mode}-{which}"

    spent = [0.0, 0.0]  # wall and CPU seconds inside the model (XGBoost's predict or numpy's dot)

    def model_timed(fn):
        def f(z):
            w, c = time.perf_counter(), time.process_time()
            out = fn(z)
            spent[0] += time.perf_counter() - w
            spent[1] += time.process_time() - c
            return out
        return f

    def margin(z):
        return booster.predict(xgb.DMatrix(z), output_margin=True).astype(np.float64)

    if which == "linear":
        with open(os.path.join(d, "linear.json")) as f:
            lin = json.load(f)
        coef, intercept = np.asarray(lin["coefficients"]), lin["intercept"]

        def margin(z):  # noqa: F811
            return np.asarray(z) @ coef + intercept

    margin = model_timed(margin)
    if mode == "predict":  # XGBoost's own predict over the rows, as many passes as asked
        passes = int(sys.argv[5]) if len(sys.argv) > 5 else 1
        _, wall, cpu = timed(lambda: [margin(rows) for _ in range(passes)])
        out = {"passes": passes}
    elif mode == "tree":
        explainer = shap.TreeExplainer(booster)
        assert explainer.model.model_type == "xgboost", explainer.model.model_type
        values, wall, cpu = timed(lambda: explainer.shap_values(rows))
        native = booster.predict(xgb.DMatrix(rows), pred_contribs=True)[:, :-1]
        assert np.array_equal(np.asarray(values, dtype=np.float32), native.astype(np.float32)), "not XGBoost's pred_contribs"
        out = {"base": float(np.asarray(explainer.expected_value).ravel()[0]), "values": np.asarray(values, dtype=float).tolist()}
    elif mode == "kernel":
        explainer = shap.KernelExplainer(margin, bg)

        def run():
            return explainer.shap_values(rows, nsamples="auto", l1_reg=False, silent=True)
        values, wall, cpu = timed(run)
        out = {"base": float(explainer.expected_value), "values": np.asarray(values, dtype=float).tolist()}
    elif mode == "lime":
        import lime.lime_tabular
        explainer = lime.lime_tabular.LimeTabularExplainer(bg, mode="regression", discretize_continuous=False,
                                                           feature_selection="none", random_state=7)

        def run():
            res = []
            for r in rows:
                e = explainer.explain_instance(r, margin, num_features=FEATURES, num_samples=5000)
                w = [0.0] * FEATURES
                for k, v in e.local_exp[1]:
                    w[k] = v
                res.append({"intercept": float(e.intercept[1]), "weights": w})
            return res
        out, wall, cpu = timed(run)
        out = {"explanations": out}
    else:
        raise SystemExit(f"unknown mode {mode}")
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(out, f)
    print(f"seconds {wall:.6f} {cpu:.6f}")
    print(f"model {spent[0]:.6f} {spent[1]:.6f}")


if __name__ == "__main__":
    main()
