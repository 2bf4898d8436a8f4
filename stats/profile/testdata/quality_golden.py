"""Golden quality metrics for stats/profile's Quality (concept drift).

scikit-learn computes what Quality.Metric must match on the same labelled
predictions: accuracy, precision, recall and f1 (average="binary" with
pos_label 1 / True for 0-1 and boolean classes, else average="macro",
zero_division=0), and mae, mse, rmse for numbers.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install scikit-learn numpy
    /tmp/venv/bin/python stats/profile/testdata/quality_golden.py > stats/profile/testdata/quality_golden.json
"""
import json
import sys

import numpy as np
import sklearn
from sklearn import metrics


def noisy(rng, truth, classes, agree):
    return [t if rng.random() < agree else classes[rng.integers(len(classes))] for t in truth]


def classification(name, truth, pred, binary):
    avg = {"average": "binary", "pos_label": True if isinstance(truth[0], bool) else 1} if binary else {"average": "macro"}
    return {
        "name": name, "y_true": truth, "y_pred": pred,
        "metrics": {
            "accuracy": metrics.accuracy_score(truth, pred),
            "precision": metrics.precision_score(truth, pred, zero_division=0, **avg),
            "recall": metrics.recall_score(truth, pred, zero_division=0, **avg),
            "f1_score": metrics.f1_score(truth, pred, zero_division=0, **avg),
        },
    }


def main():
    rng = np.random.default_rng(20261122)
    cases = []
    ints = [int(v) for v in rng.integers(0, 2, 600)]
    cases.append(classification("binary 0/1", ints, [int(v) for v in noisy(rng, ints, [0, 1], 0.8)], True))
    bools = [bool(v) for v in rng.integers(0, 2, 400)]
    cases.append(classification("binary booleans", bools, [bool(v) for v in noisy(rng, bools, [False, True], 0.7)], True))
    skewed = [int(v) for v in (rng.random(500) < 0.05)]
    cases.append(classification("binary, rare positives", skewed, [0] * 500, True))
    words = ["cat", "dog", "bird", "fish", "frog"]
    truth = [words[i] for i in rng.integers(0, 5, 700)]
    cases.append(classification("five string classes", truth, [str(v) for v in noisy(rng, truth, words + ["horse"], 0.6)], False))
    multi = [int(v) for v in rng.integers(0, 4, 300)]
    cases.append(classification("four integer classes", multi, [int(v) for v in noisy(rng, multi, [0, 1, 2, 3], 0.5)], False))
    y = rng.normal(10, 3, 800)
    p = y + rng.normal(0, 1.5, 800)
    y, p = [float(v) for v in y], [float(v) for v in p]
    cases.append({"name": "regression", "y_true": y, "y_pred": p, "metrics": {
        "mae": metrics.mean_absolute_error(y, p),
        "mse": metrics.mean_squared_error(y, p),
        "rmse": metrics.root_mean_squared_error(y, p),
    }})
    json.dump({"generator": f"scikit-learn {sklearn.__version__}, numpy {np.__version__}", "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
