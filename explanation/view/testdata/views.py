#!/usr/bin/env python3
"""Golden figures of explanation's views (views.go), from shap's values.

Reads the SHAP values shap 0.49.1 gave the xgb_bin model's 20 rows
(stats/shap/testdata/golden.json, "path") and writes views.json beside this
script with numpy and scipy:

  importance   per feature, mean |SHAP| and mean SHAP over the rows (the
               global feature importance of shap's summary plots)
  pairs        for rows (0,1), (2,3), ... (18,19): scipy.stats.spearmanr of
               the two rows' values and their cosine similarity

Run with the venv of stats/shap/testdata/generate.py (numpy 2.4.6, scipy
1.17.1):

    /root/.cache/vigil-engines/explain/bin/python explanation/view/testdata/views.py
"""
import json
import os

import numpy as np
from scipy import stats

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "stats", "shap", "testdata", "golden.json")) as f:
    golden = json.load(f)
case = next(c for c in golden["trees"] if c["name"] == "xgb_bin")
values = np.array(case["path"]["values"], dtype=np.float64)
features = ["a", "b", "c", "d", "e"]

out = {
    "features": features,
    "values": values.tolist(),
    "importance": {
        f: {"mean_abs": float(np.mean(np.abs(values[:, j]))), "mean": float(np.mean(values[:, j]))}
        for j, f in enumerate(features)
    },
    "pairs": [],
}
for i in range(0, len(values) - 1, 2):
    x, y = values[i], values[i + 1]
    rho = stats.spearmanr(x, y).statistic
    cos = float(np.dot(x, y) / np.sqrt(np.dot(x, x) * np.dot(y, y)))
    out["pairs"].append({"a": i, "b": i + 1, "spearman": None if np.isnan(rho) else float(rho), "cosine": cos})
with open(os.path.join(here, "views.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
