#!/usr/bin/env python3
"""Generate golden.json: metric values computed by scikit-learn for the Go
package github.com/vigilhq/vigil/stats/evaluation.

This script installs nothing. Run it in a throwaway virtual environment:

    python3 -m venv /tmp/skl-venv
    /tmp/skl-venv/bin/pip install scikit-learn==1.9.1 numpy==2.4.6 scipy==1.17.1
    /tmp/skl-venv/bin/python evaluation/testdata/generate.py

It writes evaluation/testdata/golden.json next to itself and refuses to run
on other versions (pass --any-version to override; the versions used are
recorded in the file either way).

Each case holds a Vigil request (the JSON body of POST /metrics/calculate,
without model_id) and, per metric, either the value scikit-learn returns
("expected") or why there is none ("errors": scikit-learn raised, or returned
NaN, which Vigil reports as an error). The request is translated to
scikit-learn calls with Vigil's documented rules (see evaluation/doc.go):

- precision/recall/f1_score use zero_division=0; average defaults to
  "binary" when the label set (declared labels, else the union of y_true and
  y_pred) has at most two labels, else "weighted"; the binary positive label
  defaults to the larger of the two labels (for a single numeric label:
  scikit-learn's own pos_label=1); declared labels are passed as labels=.
- y_score is the score of the positive class (pos_label, default the larger
  label); y_prob has one column per class in sorted order (declared labels,
  else the distinct values of y_true). A two-column y_prob for a binary
  problem is scored on the positive column for roc_auc.
- multiclass roc_auc is one-vs-rest, average macro unless the request says
  macro, weighted or micro.
"""

import argparse
import json
import math
import os
import platform
import sys
import warnings

import numpy as np
import scipy
import sklearn
from sklearn import metrics as skm

PINNED = {"scikit-learn": "1.9.1", "numpy": "2.4.6", "scipy": "1.17.1"}
SEED = 20260509
HARD = ["accuracy", "precision", "recall", "f1_score"]
PROB = ["roc_auc", "log_loss"]
CLS = HARD + PROB
REG = ["mse", "mae", "rmse", "r2"]


# ---------------------------------------------------------------- translation


def union_sorted(*cols):
    vals = set()
    for c in cols:
        if c is not None:
            vals.update(c)
    return sorted(vals)


def hard_labels(req):
    if req.get("labels") is not None:
        return req["labels"], True
    return union_sorted(req["y_true"], req.get("y_pred")), False


def resolve_average(req):
    labels, declared = hard_labels(req)
    avg = req.get("average")
    if avg is None:
        avg = "binary" if len(labels) <= 2 else "weighted"
    kwargs = {"average": avg, "zero_division": 0.0}
    if avg != "binary":
        if declared:
            kwargs["labels"] = labels
        return kwargs
    present = union_sorted(req["y_true"], req["y_pred"])
    if req.get("pos_label") is not None:
        kwargs["pos_label"] = req["pos_label"]
    elif declared and len(labels) == 2:
        kwargs["pos_label"] = labels[1]
    elif len(present) == 2:
        kwargs["pos_label"] = present[1]
    elif isinstance(present[0], str):
        raise AssertionError("golden cases must not need an inferred string pos_label")
    else:
        kwargs["pos_label"] = 1
    return kwargs


def prob_classes(req):
    if req.get("labels") is not None:
        return req["labels"], True
    return sorted(set(req["y_true"])), False


def binary_pos(req, classes):
    if req.get("pos_label") is not None:
        return req["pos_label"]
    return classes[1] if len(classes) >= 2 else None


def sk_roc_auc(req):
    yt = np.asarray(req["y_true"])
    classes, declared = prob_classes(req)
    if "y_score" in req:
        s = np.asarray(req["y_score"], dtype=float)
        if len(classes) > 2:
            return skm.roc_auc_score(yt, s)  # raises: multiclass y_true
        pos = binary_pos(req, classes)
        present = sorted(set(req["y_true"]))
        if len(present) == 2 and pos == present[1]:
            return skm.roc_auc_score(yt, s)  # scikit-learn's own positive class
        return skm.roc_auc_score((yt == pos).astype(int), s)
    p = np.asarray(req["y_prob"], dtype=float)
    if p.shape[1] == 2 and len(classes) == 2:
        pos = binary_pos(req, classes)
        return skm.roc_auc_score((yt == pos).astype(int), p[:, classes.index(pos)])
    avg = req.get("average") or "macro"
    return skm.roc_auc_score(
        yt, p, multi_class="ovr", average=avg, labels=classes if declared else None
    )


def sk_log_loss(req):
    yt = req["y_true"]
    classes, declared = prob_classes(req)
    labels = classes if declared else None
    if "y_score" in req:
        s = np.asarray(req["y_score"], dtype=float)
        pos = binary_pos(req, classes)
        if len(classes) == 2 and pos == classes[0]:
            # y_score is P(classes[0]): give scikit-learn both columns.
            return skm.log_loss(yt, np.column_stack([s, 1 - s]), labels=labels)
        return skm.log_loss(yt, s, labels=labels)
    return skm.log_loss(yt, np.asarray(req["y_prob"], dtype=float), labels=labels)


def sk_metric(name, req):
    yt, yp = req["y_true"], req.get("y_pred")
    if req.get("labels") is not None:
        outside = set(yt) - set(req["labels"])
        if outside:
            # Vigil refuses this for every metric; scikit-learn's log_loss and
            # multiclass roc_auc raise likewise.
            raise ValueError(f"y_true contains values {outside} not in labels (Vigil validation)")
    if name == "accuracy":
        return skm.accuracy_score(yt, yp)
    if name in ("precision", "recall", "f1_score"):
        kwargs = resolve_average(req)
        fn = {"precision": skm.precision_score, "recall": skm.recall_score,
              "f1_score": skm.f1_score}[name]
        return fn(yt, yp, **kwargs)
    if name == "roc_auc":
        return sk_roc_auc(req)
    if name == "log_loss":
        return sk_log_loss(req)
    if name == "mse":
        return skm.mean_squared_error(yt, yp)
    if name == "mae":
        return skm.mean_absolute_error(yt, yp)
    if name == "rmse":
        return skm.root_mean_squared_error(yt, yp)
    if name == "r2":
        return skm.r2_score(yt, yp)
    raise KeyError(name)


def evaluate(req):
    expected, errors = {}, {}
    for name in req["metric_types"]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                v = float(sk_metric(name, req))
            except (ValueError, TypeError) as e:
                errors[name] = f"{type(e).__name__}: {e}"
                continue
        if not math.isfinite(v):
            why = "; ".join(str(w.message) for w in caught) or "no warning"
            errors[name] = f"scikit-learn returned {v} ({why})"
        else:
            expected[name] = v
    return expected, errors


# ---------------------------------------------------------------- cases


rng = np.random.default_rng(SEED)
CASES = []


def tolist(a):
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return [int(x) for x in a.ravel()] if a.ndim == 1 else [tolist(r) for r in a]
    if a.dtype.kind == "f":
        return [float(x) for x in a] if a.ndim == 1 else [tolist(r) for r in a]
    return [str(x) for x in a]


def case(name, note="", **req):
    req = {k: (tolist(v) if isinstance(v, np.ndarray) else v) for k, v in req.items()}
    expected, errors = evaluate(req)
    c = {"name": name}
    if note:
        c["note"] = note
    c["request"] = req
    if expected:
        c["expected"] = expected
    if errors:
        c["errors"] = errors
    CASES.append(c)


def noisy_labels(yt, classes, p_wrong):
    yp = yt.copy()
    flip = rng.random(len(yt)) < p_wrong
    yp[flip] = rng.choice(classes, flip.sum())
    return yp


def binary_scores(yt01, sep, decimals=None):
    """P(positive) correlated with the truth."""
    z = rng.normal(0, 1, len(yt01)) + sep * (2 * yt01 - 1)
    p = 1 / (1 + np.exp(-z))
    return np.round(p, decimals) if decimals is not None else p


def class_probs(yt_idx, k, sep, denom=None):
    """Rows of probabilities, peaked at the true class. With denom, every
    probability is a multiple of 1/denom (compact JSON, many ties)."""
    logits = rng.normal(0, 1, (len(yt_idx), k))
    logits[np.arange(len(yt_idx)), yt_idx] += sep
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    if denom is None:
        return p
    q = np.floor(p * denom).astype(int)
    q[np.arange(len(q)), q.argmax(axis=1)] += denom - q.sum(axis=1)
    return q / denom


def add_binary_cases():
    # Seeded random binary problems, numeric labels.
    for n, pos_rate, sep, wrong in [(200, 0.5, 1.0, 0.2), (1000, 0.3, 0.7, 0.3), (57, 0.6, 2.0, 0.1)]:
        yt = (rng.random(n) < pos_rate).astype(int)
        yp = noisy_labels(yt, [0, 1], wrong)
        case(f"binary_random_n{n}", y_true=yt, y_pred=yp, y_score=binary_scores(yt, sep), metric_types=CLS)
    # Imbalanced: 2% positives.
    yt = (rng.random(800) < 0.02).astype(int)
    yp = noisy_labels(yt, [0, 1], 0.03)
    case("binary_imbalanced_2pct", y_true=yt, y_pred=yp, y_score=binary_scores(yt, 1.5), metric_types=CLS)
    # Imbalanced with no positive prediction: precision is 0/0 -> 0.
    yt = (rng.random(300) < 0.05).astype(int)
    case("binary_imbalanced_never_predicts_positive", y_true=yt, y_pred=np.zeros(300, int),
         y_score=binary_scores(yt, 1.0), metric_types=CLS)
    # Decision-function scores (any real): roc_auc works, log_loss raises.
    yt = (rng.random(400) < 0.4).astype(int)
    z = rng.normal(0, 2, 400) + 1.5 * (2 * yt - 1)
    case("binary_decision_function_scores", y_true=yt, y_pred=(z > 0).astype(int), y_score=z, metric_types=CLS)
    # Other numeric label pairs.
    yt = rng.choice([-1, 1], 150)
    yp = noisy_labels(yt, [-1, 1], 0.25)
    yt01 = (yt == 1).astype(int)
    case("binary_minus1_plus1", y_true=yt, y_pred=yp, y_score=binary_scores(yt01, 1.0), metric_types=CLS)
    yt = rng.choice([1, 2], 150)
    yp = noisy_labels(yt, [1, 2], 0.25)
    case("binary_1_2_default_pos_is_2",
         note="scikit-learn's default pos_label=1 would score class 1; Vigil's default is the larger label, 2",
         y_true=yt, y_pred=yp, y_score=binary_scores((yt == 2).astype(int), 1.0), metric_types=CLS)
    yt = rng.choice([0, 2], 120)
    yp = noisy_labels(yt, [0, 2], 0.2)
    case("binary_0_2_default_pos_is_2", note="scikit-learn raises without pos_label; Vigil takes the larger label",
         y_true=yt, y_pred=yp, y_score=binary_scores((yt == 2).astype(int), 1.0), metric_types=CLS)
    yt = rng.choice([0.0, 1.0], 90)
    case("binary_float_labels", y_true=yt, y_pred=noisy_labels(yt, [0.0, 1.0], 0.3),
         y_score=binary_scores(yt.astype(int), 1.0), metric_types=CLS)
    # String labels.
    yt = rng.choice(["ham", "spam"], 250, p=[0.7, 0.3])
    yp = noisy_labels(yt, ["ham", "spam"], 0.2)
    s = binary_scores((yt == "spam").astype(int), 1.2)
    case("binary_strings_default_pos", y_true=yt, y_pred=yp, y_score=s, metric_types=CLS)
    case("binary_strings_pos_label_ham", y_true=yt, y_pred=yp, y_score=1 - s, pos_label="ham", metric_types=CLS)
    yt = rng.choice([0, 1], 200)
    yp = noisy_labels(yt, [0, 1], 0.3)
    s = binary_scores(yt, 0.8)
    case("binary_pos_label_0", y_true=yt, y_pred=yp, y_score=1 - s, pos_label=0, metric_types=CLS)
    case("binary_y_prob_two_columns", y_true=yt, y_pred=yp, y_prob=np.column_stack([1 - s, s]), metric_types=CLS)
    for avg in ["macro", "micro", "weighted"]:
        case(f"binary_average_{avg}", y_true=yt, y_pred=yp, y_score=s, average=avg, metric_types=CLS)
    # Perfect and worst predictions, including probabilities of exactly 0 and 1 (clipping).
    yt = rng.choice([0, 1], 64)
    case("binary_perfect", y_true=yt, y_pred=yt, y_score=yt.astype(float), metric_types=CLS)
    case("binary_worst", y_true=yt, y_pred=1 - yt, y_score=(1 - yt).astype(float), metric_types=CLS)
    case("binary_tiny_probabilities",
         y_true=yt, y_pred=yt, y_score=np.where(yt == 1, 1 - 1e-17, 1e-300), metric_types=CLS)
    # Ties in scores.
    yt = (rng.random(300) < 0.4).astype(int)
    case("binary_ties_one_decimal", y_true=yt, y_pred=noisy_labels(yt, [0, 1], 0.3),
         y_score=binary_scores(yt, 0.8, decimals=1), metric_types=CLS)
    case("binary_all_scores_equal", y_true=yt, y_pred=noisy_labels(yt, [0, 1], 0.3),
         y_score=np.full(300, 0.5), metric_types=CLS)
    yt = (rng.random(5000) < 0.5).astype(int)
    case("binary_ties_n5000", y_true=yt, y_pred=noisy_labels(yt, [0, 1], 0.3),
         y_score=binary_scores(yt, 0.5, decimals=2), metric_types=CLS)
    # Single class in y_true.
    yt = np.ones(40, int)
    yp = noisy_labels(yt, [0, 1], 0.3)
    case("binary_single_class_y_true",
         note="roc_auc: scikit-learn returns NaN with a warning; log_loss: scikit-learn raises",
         y_true=yt, y_pred=yp, y_score=binary_scores(yt, 1.0), metric_types=CLS)
    case("binary_single_class_y_true_declared_labels",
         y_true=yt, y_pred=yp, y_score=binary_scores(yt, 1.0), labels=[0, 1], metric_types=CLS)
    case("binary_all_zero", note="pos_label defaults to 1 (scikit-learn's default) when only 0 occurs",
         y_true=np.zeros(10, int), y_pred=np.zeros(10, int), metric_types=HARD)
    case("binary_all_one", y_true=np.ones(10, int), y_pred=np.ones(10, int), metric_types=HARD)
    case("binary_pos_label_absent_single_label", y_true=np.zeros(10, int), y_pred=np.zeros(10, int),
         pos_label=1, metric_types=HARD)
    case("binary_pos_label_not_a_label", y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], pos_label=2, metric_types=HARD)
    case("binary_one_row", y_true=[1], y_pred=[1], y_score=[0.9], metric_types=CLS)
    # log_loss range checks.
    case("binary_y_score_above_one", y_true=[0, 1, 1], y_pred=[0, 1, 1], y_score=[0.2, 1.3, 0.9], metric_types=PROB)
    case("binary_y_score_below_zero", y_true=[0, 1, 1], y_pred=[0, 1, 1], y_score=[-0.2, 0.3, 0.9], metric_types=PROB)


def add_multiclass_cases():
    for k, n, avg in [(3, 300, None), (4, 400, "macro"), (5, 500, "micro"), (7, 700, "weighted"), (6, 150, None)]:
        yt_idx = rng.integers(0, k, n)
        classes = list(range(k))
        yp = noisy_labels(yt_idx, classes, 0.35)
        denom = None if n == 150 else 1000
        extra = {"average": avg} if avg else {}
        case(f"multiclass_k{k}_n{n}_{avg or 'default'}", y_true=yt_idx, y_pred=yp,
             y_prob=class_probs(yt_idx, k, 1.5, denom), metric_types=CLS, **extra)
    # String labels, imbalanced.
    names = np.array(["ant", "bee", "cat", "cow", "dog"])
    idx = rng.choice(5, 600, p=[0.5, 0.25, 0.15, 0.07, 0.03])
    yp = noisy_labels(names[idx], list(names), 0.3)
    probs = class_probs(idx, 5, 1.2, 1000)
    for avg in [None, "macro", "micro", "weighted"]:
        extra = {"average": avg} if avg else {}
        case(f"multiclass_strings_imbalanced_{avg or 'default'}", y_true=names[idx], y_pred=yp,
             y_prob=probs, metric_types=CLS, **extra)
    # Twelve classes: averages over more than eight values (NumPy's unrolled sum).
    idx = rng.integers(0, 12, 600)
    for avg in ["macro", "weighted"]:
        case(f"multiclass_k12_{avg}", y_true=idx, y_pred=noisy_labels(idx, list(range(12)), 0.4),
             y_prob=class_probs(idx, 12, 2.0, 1000), average=avg, metric_types=CLS)
    # A label only in y_pred.
    yt = rng.integers(0, 3, 200)
    yp = noisy_labels(yt, [0, 1, 2, 3], 0.3)
    probs = class_probs(yt, 3, 1.0, 1000)
    for avg in ["macro", "weighted", "micro"]:
        case(f"multiclass_label_only_in_y_pred_{avg}", y_true=yt, y_pred=yp, y_prob=probs,
             average=avg, metric_types=CLS)
    # Declared labels with a class absent from y_true (and y_pred).
    yt = rng.integers(0, 3, 240)
    yp = noisy_labels(yt, [0, 1, 2], 0.3)
    probs = class_probs(yt, 4, 1.5, 1000)
    for avg in ["macro", "weighted", "micro"]:
        case(f"multiclass_declared_absent_class_{avg}",
             note="roc_auc macro: the absent class's one-vs-rest AUC is NaN, so scikit-learn returns NaN",
             y_true=yt, y_pred=yp, y_prob=probs, labels=[0, 1, 2, 3], average=avg, metric_types=CLS)
    case("multiclass_declared_labels_y_true_outside", y_true=[0, 1, 2, 1], y_prob=[[0.5, 0.5]] * 4,
         labels=[0, 1], metric_types=PROB)
    # Errors.
    yt = rng.integers(0, 3, 30)
    case("multiclass_average_binary", y_true=yt, y_pred=noisy_labels(yt, [0, 1, 2], 0.3),
         y_prob=class_probs(yt, 3, 1.0), average="binary", metric_types=CLS)
    case("multiclass_with_y_score", y_true=yt, y_pred=yt, y_score=rng.random(30), metric_types=PROB)
    case("multiclass_too_few_columns", y_true=yt, y_prob=class_probs(np.minimum(yt, 1), 2, 1.0), metric_types=PROB)
    unnorm = class_probs(yt, 3, 1.0) * 0.9
    case("multiclass_rows_do_not_sum_to_one",
         note="roc_auc raises; log_loss only warns and does not renormalise",
         y_true=yt, y_pred=yt, y_prob=unnorm, metric_types=PROB)
    over = class_probs(yt, 3, 1.0)
    over[0] = [1.2, -0.1, -0.1]
    case("multiclass_probability_above_one", y_true=yt, y_prob=over, metric_types=["log_loss"])
    yt = rng.integers(0, 3, 60)
    case("multiclass_perfect", y_true=yt, y_pred=yt, y_prob=np.eye(3)[yt], metric_types=CLS)
    case("multiclass_float_labels", y_true=yt.astype(float), y_pred=noisy_labels(yt, [0, 1, 2], 0.3).astype(float),
         y_prob=class_probs(yt, 3, 1.0, 1000), metric_types=CLS)


def add_target_type_cases():
    case("continuous_y_true_and_y_pred", y_true=[0.5, 1.5, 2.5], y_pred=[0.5, 1.5, 2.5], metric_types=HARD)
    case("continuous_y_pred", y_true=[0, 1, 1], y_pred=[0.2, 0.9, 1.0], metric_types=HARD)
    case("continuous_y_true", y_true=[0.2, 0.9, 1.0], y_pred=[0, 1, 1], metric_types=HARD)
    case("continuous_y_true_prob", y_true=[0.2, 0.9, 1.0, 0.1], y_score=[0.1, 0.8, 0.9, 0.2], metric_types=PROB)
    case("huge_label_is_continuous", note="1e20 does not survive a cast to int64, so type_of_target says continuous",
         y_true=[1e20, 0.0], y_pred=[1e20, 0.0], metric_types=HARD)
    case("classification_and_regression_on_integer_labels", y_true=[0, 1, 2, 2, 1, 0], y_pred=[0, 2, 2, 2, 1, 1],
         metric_types=HARD + REG)


def add_regression_cases():
    n = 2000
    yt = rng.normal(50, 10, n)
    case("regression_random_n2000", y_true=yt, y_pred=yt + rng.normal(0, 3, n), metric_types=REG)
    yt = rng.normal(0, 1, 300)
    yp = yt + rng.normal(0, 0.5, 300)
    yp[:5] = [1e6, -3e5, 250.0, 1e4, -1e4]
    case("regression_outliers", y_true=yt, y_pred=yp, metric_types=REG)
    yt = rng.standard_cauchy(400)
    case("regression_heavy_tailed_targets", y_true=yt, y_pred=yt * 0.8 + rng.normal(0, 1, 400), metric_types=REG)
    yt = rng.integers(0, 100, 150)
    case("regression_integer_targets", y_true=yt, y_pred=yt + rng.integers(-5, 6, 150), metric_types=REG)
    yt = rng.normal(0, 1, 100)
    case("regression_perfect", y_true=yt, y_pred=yt, metric_types=REG)
    case("regression_worse_than_mean", y_true=yt, y_pred=-3 * yt, metric_types=REG)
    case("regression_constant_y_true_perfect", y_true=[5.0] * 20, y_pred=[5.0] * 20, metric_types=REG)
    case("regression_constant_y_true_imperfect", y_true=[5.0] * 20, y_pred=[5.0] * 19 + [6.0], metric_types=REG)
    case("regression_constant_0p1_n10", y_true=[0.1] * 10, y_pred=[0.1] * 9 + [0.2], metric_types=REG)
    # A constant whose NumPy mean is not exactly the constant: the denominator
    # of r2 is then tiny but not zero, so force_finite does not apply.
    for m in range(3, 400):
        if float(np.mean([0.1] * m)) != 0.1:
            case(f"regression_constant_0p1_inexact_mean_n{m}",
                 note="np.mean of the constant differs from it in the last bit, so r2 is not forced to 0",
                 y_true=[0.1] * m, y_pred=[0.1] * (m - 1) + [0.2], metric_types=REG)
            break
    case("regression_one_row", note="r2: scikit-learn warns and returns NaN",
         y_true=[3.0], y_pred=[2.5], metric_types=REG)
    case("regression_two_rows", y_true=[3.0, -1.0], y_pred=[2.5, 0.0], metric_types=REG)
    case("regression_large_magnitudes", y_true=[1e15, 1e15 + 2, 1e15 + 4, 1e15 + 8],
         y_pred=[1e15 + 1, 1e15 + 2, 1e15 + 3, 1e15 + 10], metric_types=REG)
    case("regression_tiny_magnitudes", y_true=list(rng.normal(0, 1e-12, 50)),
         y_pred=list(rng.normal(0, 1e-12, 50)), metric_types=REG)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--any-version", action="store_true")
    args = ap.parse_args()
    have = {"scikit-learn": sklearn.__version__, "numpy": np.__version__, "scipy": scipy.__version__}
    if have != PINNED and not args.any_version:
        sys.exit(f"want {PINNED}, have {have}: install the pinned versions or pass --any-version")
    add_binary_cases()
    add_multiclass_cases()
    add_target_type_cases()
    add_regression_cases()
    out = {
        "generator": "evaluation/testdata/generate.py",
        "seed": SEED,
        "versions": {**have, "python": platform.python_version()},
        "cases": CASES,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    n_exp = sum(len(c.get("expected", {})) for c in CASES)
    n_err = sum(len(c.get("errors", {})) for c in CASES)
    print(f"{len(CASES)} cases, {n_exp} expected values, {n_err} expected errors, "
          f"{os.path.getsize(path)} bytes -> {path}")


if __name__ == "__main__":
    main()
