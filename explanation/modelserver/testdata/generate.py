#!/usr/bin/env python3
"""Generate golden.json: shap's Kernel SHAP and lime's LIME of server.py's scikit-learn model.

Pinned versions (the venv of stats/shap/testdata/generate.py):

    /root/.cache/vigil-engines/explain/bin/pip install shap==0.49.1 scikit-learn==1.9.1 \
        lime==0.2.0.1 numpy==2.4.6
    /root/.cache/vigil-engines/explain/bin/python explanation/modelserver/testdata/generate.py

The tests do not need shap or lime: they run server.py (scikit-learn only) and compare what Vigil
computes through it with the figures here.

  kernel: shap.KernelExplainer(model.predict, background) with l1_reg=False and its default sample
          count, 2M+2048, which enumerates every coalition of the 4 features: exact Shapley values.
  lime:   LimeTabularExplainer(training rows, mode="regression", discretize_continuous=False,
          random_state=7).explain_instance(row, model.predict, num_features=4, num_samples=300);
          the perturbation sample lime drew is recorded twice: as the rows it sent to the model
          ("rows", which Vigil sends to the server) and scaled ("scaled", which the fit reads).
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import lime.lime_tabular  # noqa: E402
import shap  # noqa: E402
import sklearn  # noqa: E402

import server  # noqa: E402


def rows(a):
    return [[float(v) for v in r] for r in np.asarray(a)]


def main():
    model = server.MODEL
    rng = np.random.default_rng(11)
    background = rng.normal(size=(12, 4))
    instances = rng.normal(size=(3, 4))
    e = shap.KernelExplainer(model.predict, background)
    kernel = {"background": rows(background), "rows": rows(instances), "base": float(e.expected_value),
              "values": rows(e.shap_values(instances, l1_reg=False, silent=True)),
              "outputs": [float(v) for v in model.predict(instances)]}

    train = rng.normal(size=(200, 4))
    ex = lime.lime_tabular.LimeTabularExplainer(train, mode="regression", discretize_continuous=False, random_state=7)
    seen = {}
    orig = ex.base.explain_instance_with_data

    def spy(neighborhood_data, neighborhood_labels, distances, label, nf, **kw):
        seen["scaled"] = neighborhood_data
        return orig(neighborhood_data, neighborhood_labels, distances, label, nf, **kw)

    def predict(A):
        seen["rows"] = np.array(A)
        return model.predict(A)

    ex.base.explain_instance_with_data = spy
    exp = ex.explain_instance(instances[0], predict, num_features=4, num_samples=300)
    limes = {"kernel_width": float(np.sqrt(4) * 0.75), "num_features": 4, "rows": rows(seen["rows"]),
             "scaled": rows(seen["scaled"]), "intercept": float(exp.intercept[0]),
             # for regression lime keeps the fit's weights under label 1
             "weights": [[int(f), float(w)] for f, w in exp.local_exp[1]],
             "score": float(exp.score), "local_pred": float(np.ravel(exp.local_pred)[0])}
    json.dump({"versions": {"shap": shap.__version__, "lime": "0.2.0.1", "sklearn": sklearn.__version__,
                            "numpy": np.__version__},
               "features": server.FEATURES, "kernel": kernel, "lime": limes},
              open(os.path.join(HERE, "golden.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
