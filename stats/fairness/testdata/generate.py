#!/usr/bin/env python3
"""Generate golden.json: fairness figures computed by fairlearn for the Go
package github.com/vigilhq/vigil/stats/fairness.

This script installs nothing. Run it in a throwaway virtual environment:

    python3 -m venv /tmp/fair-venv
    /tmp/fair-venv/bin/pip install fairlearn==0.15.0 numpy==2.4.6 pandas==3.1.1 scikit-learn==1.9.1
    /tmp/fair-venv/bin/python stats/fairness/testdata/generate.py

It writes golden.json next to itself and refuses to run on other versions
(pass --any-version to override; the versions used are recorded in the file
either way).

Each case holds an audit input (attribute columns, with null for a missing
value; y_pred; optional y_true, favourable label, reference groups,
missing-value group and intersections) and, per attribute:

- "groups": fairlearn's MetricFrame.by_group (count, selection_rate,
  true/false positive and false negative rate) plus scikit-learn's precision
  (zero_division=nan, so null when undefined) and accuracy, and the numbers
  of positive and negative labels. fairlearn reports an undefined TPR or FPR
  (a group with no positive, or no negative, labels) as 0; the Go test checks
  that Vigil reports it as undefined and that fairlearn's value is 0.
- "fairlearn": fairlearn's demographic_parity_difference/ratio,
  equal_opportunity_difference/ratio and equalized_odds_difference/ratio
  (method between_groups, agg worst_case) on every row: what Vigil computes
  with UndefinedAsZero.
- "vigil": the same functions with Vigil's default rule, which leaves a group
  out of a comparison when its rate is undefined: the TPR figures come from
  MetricFrame(true_positive_rate) over the rows of groups with a positive
  label, the FPR ones over the groups with a negative label, and equalized
  odds takes the larger difference and the smaller defined ratio of the two,
  as fairlearn's worst_case does. null where fewer than two groups remain
  (Vigil: not computed).
- "headline": the value each metric's pass condition tests and whether it
  passes (the spec's conditions), computed here from fairlearn's per-group
  rates: without a reference group, the parity and impact ratios are
  demographic_parity_ratio and the opportunity and odds differences the
  "vigil" ones; with a reference group, every other group's selection rate
  over the reference's (parity: the ratio farthest outside, or nearest to
  leaving, [0.8, 1.2] relative to the bound on its side;
  impact: the smallest) and the largest absolute TPR (odds: TPR or FPR)
  difference to the reference.

Labels: y_pred and y_true are 0/1, or any labels with a declared favourable
one, which is binarised (label == favourable) before fairlearn sees it.
Missing attribute values: fairlearn refuses them, so their rows are dropped
for that attribute, or replaced by missing_group when the case sets one.
Intersections: fairlearn's MetricFrame over a DataFrame of the parts; its
tuple labels are joined with " & " (Go's Intersect).
"""

import argparse
import json
import math
import os
import platform
import sys
import warnings

import fairlearn
import numpy as np
import pandas as pd
import sklearn
from fairlearn import metrics as flm
from sklearn import metrics as skm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthetic import synthetic_rows  # noqa: E402

PINNED = {"fairlearn": "0.15.0", "numpy": "2.4.6", "pandas": "3.1.1", "scikit-learn": "1.9.1"}
SEED = 20260921
SEP = " & "
PARITY = (0.8, 1.2)
MAX_DIFF = 0.1
IMPACT_MIN = 0.8


def num(v):
    v = float(v)
    return None if math.isnan(v) else v


# ---------------------------------------------------------------- per attribute


def frame(yt, yp, sf, metrics):
    return flm.MetricFrame(metrics=metrics, y_true=yt, y_pred=yp, sensitive_features=sf)


def group_name(key):
    return SEP.join(str(k) for k in key) if isinstance(key, tuple) else str(key)


def groups_of(yt, yp, sf, labelled):
    ms = {"count": flm.count, "selection_rate": flm.selection_rate}
    if labelled:
        ms.update({
            "tpr": flm.true_positive_rate, "fpr": flm.false_positive_rate, "fnr": flm.false_negative_rate,
            "precision": lambda t, p: skm.precision_score(t, p, zero_division=np.nan),
            "accuracy": skm.accuracy_score,
            "positives": lambda t, p: int(np.sum(t)), "negatives": lambda t, p: int(np.sum(1 - t)),
        })
    bg = frame(yt, yp, sf, ms).by_group
    out = {}
    for key, row in bg.iterrows():
        if math.isnan(row["count"]):
            continue  # an intersection that does not occur
        out[group_name(key)] = {k: (int(v) if k in ("count", "positives", "negatives") else num(v))
                                for k, v in row.items()}
    return out


def fairlearn_figures(yt, yp, sf, labelled):
    out = {
        "demographic_parity_difference": flm.demographic_parity_difference(yt, yp, sensitive_features=sf),
        "demographic_parity_ratio": flm.demographic_parity_ratio(yt, yp, sensitive_features=sf),
    }
    if labelled:
        out.update({
            "equal_opportunity_difference": flm.equal_opportunity_difference(yt, yp, sensitive_features=sf),
            "equal_opportunity_ratio": flm.equal_opportunity_ratio(yt, yp, sensitive_features=sf),
            "equalized_odds_difference": flm.equalized_odds_difference(yt, yp, sensitive_features=sf, agg="worst_case"),
            "equalized_odds_ratio": flm.equalized_odds_ratio(yt, yp, sensitive_features=sf, agg="worst_case"),
        })
    return {k: num(v) for k, v in out.items()}


def keys_of(sf):
    if isinstance(sf, pd.DataFrame):
        return np.array([SEP.join(map(str, r)) for r in sf.itertuples(index=False)], dtype=object)
    return np.asarray(sf, dtype=object)


def defined_part(yt, yp, sf, rate, want_label):
    """fairlearn's MetricFrame of one rate over the groups that have a row
    with y_true == want_label; (difference, ratio) or None when fewer than two."""
    keys = keys_of(sf)
    ok = set(keys[yt == want_label])
    rows = np.array([k in ok for k in keys])
    if len(ok) < 2:
        return None
    sub = sf[rows] if isinstance(sf, pd.DataFrame) else np.asarray(sf, dtype=object)[rows]
    mf = frame(yt[rows], yp[rows], sub, rate)
    return num(mf.difference()), num(mf.ratio())


def vigil_figures(yt, yp, sf, labelled):
    out = {
        "demographic_parity_difference": num(flm.demographic_parity_difference(yt, yp, sensitive_features=sf)),
        "demographic_parity_ratio": num(flm.demographic_parity_ratio(yt, yp, sensitive_features=sf)),
    }
    if not labelled:
        return out
    tpr = defined_part(yt, yp, sf, flm.true_positive_rate, 1)
    fpr = defined_part(yt, yp, sf, flm.false_positive_rate, 0)
    out["equal_opportunity_difference"] = tpr and tpr[0]
    out["equal_opportunity_ratio"] = tpr and tpr[1]
    if tpr is None or fpr is None:
        out["equalized_odds_difference"] = out["equalized_odds_ratio"] = None
    else:
        out["equalized_odds_difference"] = max(tpr[0], fpr[0])
        ratios = [r for r in (tpr[1], fpr[1]) if r is not None]
        out["equalized_odds_ratio"] = min(ratios) if ratios else None
    return out


def headline(groups, vigil, ref, labelled):
    """The value each pass condition tests, from fairlearn's per-group rates."""
    out = {}
    if ref is None:
        r = vigil["demographic_parity_ratio"]
        out["demographic_parity"] = r
        out["disparate_impact"] = r
        if labelled:
            out["equal_opportunity"] = vigil["equal_opportunity_difference"]
            out["equalized_odds"] = vigil["equalized_odds_difference"]
    else:
        g0 = groups[ref]
        others = {k: g for k, g in groups.items() if k != ref}
        ratios = [g["selection_rate"] / g0["selection_rate"] for g in others.values()]
        # The ratio that spends the most of its side's allowance.
        out["demographic_parity"] = max(ratios, key=lambda v: max((1 - v) / (1 - PARITY[0]), (v - 1) / (PARITY[1] - 1)))
        out["disparate_impact"] = min(ratios)
        if labelled:
            def gaps(rate, need):
                if g0[need] == 0:
                    return None
                return [abs(g[rate] - g0[rate]) for g in others.values() if g[need] > 0]
            t, f = gaps("tpr", "positives"), gaps("fpr", "negatives")
            out["equal_opportunity"] = max(t) if t else None
            out["equalized_odds"] = max(t + f) if t and f else None
    passed = {}
    for m, v in out.items():
        if v is None:
            continue
        if m == "demographic_parity":
            passed[m] = PARITY[0] <= v <= PARITY[1]
        elif m == "disparate_impact":
            passed[m] = v >= IMPACT_MIN
        else:
            passed[m] = v < MAX_DIFF
    return {"value": out, "passed": passed}


def binarise(col, fav):
    if col is None:
        return None
    a = np.asarray(col, dtype=object)
    if fav is None:
        return a.astype(np.int64)
    return (a == fav).astype(np.int64)


def sensitive(values, missing_group):
    """The attribute column for fairlearn and the rows it keeps."""
    a = np.asarray(values, dtype=object)
    miss = np.array([v is None for v in values])
    if missing_group is not None:
        a = a.copy()
        a[miss] = missing_group
        return a, np.ones(len(a), bool)
    return a[~miss], ~miss


def expect(inp):
    fav = inp.get("favourable")
    yp = binarise(inp["y_pred"], fav)
    yt = binarise(inp.get("y_true"), fav)
    labelled = yt is not None
    if not labelled:
        yt = np.zeros(len(yp), np.int64)  # ignored by selection_rate
    mg = inp.get("missing_group")
    cols = {a["name"]: a["values"] for a in inp["attributes"]}
    out = {}
    targets = [(n, v) for n, v in cols.items()] + [(n, parts) for n, parts in inp.get("intersect", {}).items()]
    for name, spec in targets:
        if name in inp.get("intersect", {}):
            miss = np.zeros(len(yp), bool)
            for p in spec:
                miss |= np.array([v is None for v in cols[p]])
            sf = pd.DataFrame({p: np.asarray(cols[p], dtype=object)[~miss] for p in spec})
            keep = ~miss
        else:
            sf, keep = sensitive(spec, mg)
        t, p = yt[keep], yp[keep]
        ref = inp.get("reference", {}).get(name)
        groups = groups_of(t, p, sf, labelled)
        vig = vigil_figures(t, p, sf, labelled)
        out[name] = {
            "groups": groups,
            "fairlearn": fairlearn_figures(t, p, sf, labelled),
            "vigil": vig,
            "headline": headline(groups, vig, ref, labelled),
        }
    return out


# ---------------------------------------------------------------- cases


rng = np.random.default_rng(SEED)
CASES = []


def tolist(a):
    if a is None:
        return None
    return [None if v is None else (v if isinstance(v, str) else v.item() if hasattr(v, "item") else v) for v in a]


def case(name, note="", **inp):
    for a in inp["attributes"]:
        a["values"] = tolist(a["values"])
    for k in ("y_pred", "y_true"):
        if k in inp:
            inp[k] = tolist(inp[k])
    c = {"name": name}
    if note:
        c["note"] = note
    c["input"] = inp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c["expected"] = expect(inp)
    CASES.append(c)


def attr(name, values):
    return {"name": name, "values": list(values)}


def biased(groups, base, lift, n_pos_rate=0.4, tpr=0.8, fpr=0.15):
    """Labels and predictions whose rates move with each row's group by lift[g]."""
    yt = (rng.random(len(groups)) < n_pos_rate).astype(int)
    u = rng.random(len(groups))
    shift = np.array([lift.get(g, 0.0) for g in groups])
    yp = np.where(yt == 1, u < tpr + shift, u < fpr + shift).astype(int)
    return yt, yp


def pick(names, n, p=None):
    return rng.choice(np.array(names, dtype=object), n, p=p)


def add_cases():
    g = pick(["female", "male"], 400)
    yt, yp = biased(g, 0, {"female": -0.1})
    case("two_groups", attributes=[attr("gender", g)], y_true=yt, y_pred=yp)

    g = pick(["majority", "minority"], 2000, p=[0.95, 0.05])
    yt, yp = biased(g, 0, {"minority": -0.12})
    case("imbalanced_groups", note="95% / 5%", attributes=[attr("group", g)], y_true=yt, y_pred=yp)

    races = ["asian", "black", "hispanic", "other", "white"]
    r = pick(races, 3000, p=[0.12, 0.15, 0.1, 0.03, 0.6])
    yt, yp = biased(r, 0, {"black": -0.08, "hispanic": -0.04, "other": 0.05})
    case("five_groups", attributes=[attr("race", r)], y_true=yt, y_pred=yp)

    n = 2500
    g = pick(["female", "male", "nonbinary"], n, p=[0.48, 0.48, 0.04])
    r = pick(["a", "b", "c", "d"], n)
    age = pick(["18-30", "31-50", "51+"], n, p=[0.3, 0.5, 0.2])
    yt, yp = biased(g, 0, {"female": -0.06})
    case("several_attributes", attributes=[attr("gender", g), attr("race", r), attr("age_band", age)],
         y_true=yt, y_pred=yp)
    case("several_attributes_no_labels", attributes=[attr("gender", g), attr("race", r)], y_pred=yp)
    case("intersection", note="gender & race combined, as fairlearn's MetricFrame over both columns",
         attributes=[attr("gender", g), attr("race", r)], y_true=yt, y_pred=yp,
         intersect={"gender & race": ["gender", "race"]})

    g = pick(["a", "b", "c"], 600)
    yt, yp = biased(g, 0, {"b": -0.1})
    yt[g == "c"] = 0
    case("group_without_positives",
         note="group c has no positive label: TPR undefined (fairlearn: 0), FPR defined",
         attributes=[attr("group", g)], y_true=yt, y_pred=yp)
    yt, yp = biased(g, 0, {"b": -0.1})
    yt[g == "a"] = 1
    case("group_without_negatives", note="group a has no negative label: FPR undefined (fairlearn: 0)",
         attributes=[attr("group", g)], y_true=yt, y_pred=yp)
    yt, yp = biased(g, 0, {})
    yt[g != "a"] = 0
    case("one_group_with_positives", note="equal opportunity needs two groups with a TPR: not computed by Vigil",
         attributes=[attr("group", g)], y_true=yt, y_pred=yp)

    # Perfect parity: every group has the same confusion counts.
    block_t = np.array([1] * 10 + [0] * 10)
    block_p = np.array([1] * 8 + [0] * 2 + [1] * 3 + [0] * 7)
    g = np.repeat(np.array(["x", "y", "z"], dtype=object), 20)
    case("perfect_parity", attributes=[attr("group", g)], y_true=np.tile(block_t, 3), y_pred=np.tile(block_p, 3))

    g = np.repeat(np.array(["favoured", "excluded"], dtype=object), 50)
    yt = rng.integers(0, 2, 100)
    yp = (g == "favoured").astype(int)
    case("extreme_bias", note="one group always selected, the other never", attributes=[attr("group", g)],
         y_true=yt, y_pred=yp)
    case("nobody_selected", note="every selection rate 0: the parity ratio is 0/0 (fairlearn NaN)",
         attributes=[attr("group", g)], y_true=yt, y_pred=np.zeros(100, int))

    g = np.array(["big"] * 199 + ["solo"], dtype=object)
    yt, yp = biased(g, 0, {})
    yt[-1], yp[-1] = 1, 0
    case("group_of_one", attributes=[attr("group", g)], y_true=yt, y_pred=yp)

    g = pick(["female", "male"], 500)
    classes = np.array(["approve", "deny", "review"], dtype=object)
    yt = rng.choice(classes, 500, p=[0.4, 0.4, 0.2])
    yp = np.where(rng.random(500) < 0.7, yt, rng.choice(classes, 500))
    yp[(g == "female") & (rng.random(500) < 0.15)] = "deny"
    case("favourable_string_label", note="three classes, favourable 'approve'",
         attributes=[attr("gender", g)], y_true=yt, y_pred=yp, favourable="approve")
    yt = rng.choice([1, 2], 500)
    yp = np.where(rng.random(500) < 0.75, yt, 3 - yt)
    case("favourable_numeric_label", note="labels 1 and 2, favourable 2",
         attributes=[attr("gender", g)], y_true=yt, y_pred=yp, favourable=2)

    g = pick(["female", "male", None], 800, p=[0.45, 0.45, 0.1])
    yt, yp = biased(g, 0, {"female": -0.05, None: -0.2})
    case("missing_values_left_out", attributes=[attr("gender", g)], y_true=yt, y_pred=yp)
    case("missing_values_as_group", attributes=[attr("gender", g)], y_true=yt, y_pred=yp,
         missing_group="unknown")

    r = pick(["white", "black", "asian"], 1500, p=[0.6, 0.25, 0.15])
    yt, yp = biased(r, 0, {"black": -0.1, "asian": 0.08})
    case("reference_group", attributes=[attr("race", r)], y_true=yt, y_pred=yp, reference={"race": "white"})
    yt, yp = biased(r, 0, {"asian": 0.25}, fpr=0.1)
    case("reference_group_below_others", note="a group selected far more often than the reference fails parity",
         attributes=[attr("race", r)], y_true=yt, y_pred=yp, reference={"race": "white"})

    gender, race, yt, yp = synthetic_rows(3000)
    case("synthetic_formula_n3000", note="the seeded rows of the benchmarks (synthetic.py, synthetic_test.go)",
         attributes=[attr("gender", gender), attr("race", race)], y_true=yt, y_pred=yp)

    g = pick(["p", "q", "r", "s"], 5000, p=[0.4, 0.3, 0.2, 0.1])
    yt, yp = biased(g, 0, {"q": -0.02, "r": 0.03, "s": -0.05})
    case("four_groups_n5000", attributes=[attr("group", g)], y_true=yt, y_pred=yp)


def checked_versions(any_version):
    """The versions in use, with Python's; exits unless they are the pinned ones."""
    have = {"fairlearn": fairlearn.__version__, "numpy": np.__version__, "pandas": pd.__version__,
            "scikit-learn": sklearn.__version__}
    if have != PINNED and not any_version:
        sys.exit(f"want {PINNED}, have {have}: install the pinned versions or pass --any-version")
    return dict(have, python=platform.python_version())


def main():
    ap = argparse.ArgumentParser(description="Write golden.json from fairlearn.")
    ap.add_argument("--any-version", action="store_true", help="run on versions other than the pinned ones")
    versions = checked_versions(ap.parse_args().any_version)
    add_cases()
    doc = dict(generator="stats/fairness/testdata/generate.py", seed=SEED, versions=versions, cases=CASES)
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        f.write(text + "\n")
    print(f"{len(CASES)} cases, {len(text) + 1} bytes -> {path}")


if __name__ == "__main__":
    main()
