#!/usr/bin/env python3
"""Generate golden.json: drift statistics computed by SciPy and NumPy for the
Go package github.com/vigilhq/vigil/stats/stattest.

This script installs nothing. Run it in a throwaway virtual environment:

    python3 -m venv /tmp/stattest-venv
    /tmp/stattest-venv/bin/pip install scipy==1.17.1 numpy==2.4.6
    /tmp/stattest-venv/bin/python stats/stattest/testdata/generate.py

It writes stats/stattest/testdata/golden.json next to itself and
refuses to run on other versions (pass --any-version to override; the
versions used are recorded in the file either way).

Sections of the file (see golden_test.go for the tolerances):

- "numeric": two numeric columns, either listed ("ref"/"cur", NaN written as
  null) or generated ("gen", see gen_column: the same formula is evaluated in
  Go, so large samples cost a few bytes). Each case holds
  scipy.stats.ks_2samp for the listed modes and alternatives (with the method
  scipy actually used: "asymptotic" when it warned that it switched),
  scipy.stats.wasserstein_distance, and, per bin count, the
  reference-quantile bin edges and counts with PSI, Jensen-Shannon, Hellinger
  and chi-squared results on those bins.
- "categorical": per-category counts (or raw values, "" being missing) with
  the same table statistics.
- "kstwo": scipy.stats.kstwo.sf(x, n) on a grid that visits every branch of
  the one-sample Kolmogorov distribution that ks_2samp's asymptotic mode uses.

The table rules are Vigil's (stats/stattest/doc.go): NaN (and "") are
removed and counted; bins are cut at numpy.quantile(ref, k/B), k=1..B-1,
consecutive equal edges merged, cells closed on the left (searchsorted
side="right"); PSI floors proportions at 1e-4 without renormalising;
Jensen-Shannon is scipy.spatial.distance.jensenshannon(p, q, base=2) (the
distance) and its square (the divergence); Hellinger is
sqrt(sum((sqrt(p) - sqrt(q))**2) / 2); chi-squared tests leave out cells
empty in both samples and call scipy.stats.chi2_contingency and
scipy.stats.chisquare(cur, ref / ref.sum() * cur.sum()).
"""

import argparse
import json
import math
import os
import platform
import sys
import warnings
from decimal import Decimal, getcontext

import numpy as np
import scipy
from scipy import stats
from scipy.spatial import distance

PINNED = {"scipy": "1.17.1", "numpy": "2.4.6"}
SEED = 20261121
EPS = 1e-4
ALL_ALTS = ["two-sided", "less", "greater"]
ALL_MODES = ["auto", "exact", "asymp"]

rng = np.random.default_rng(SEED)


# ---------------------------------------------------------------- generated columns


def gen_column(spec):
    """x_i = shift + scale * g(u_i) for i = 0..n-1, with u_i = frac(i * step)
    (an additive-recurrence sequence, evenly spread on [0, 1)) and g the
    identity, or u -> u*u ("square"). With "levels" L, u_i is first
    replaced by floor(u_i * L) / L, which makes ties. Every step is one
    IEEE-754 operation, so Go reproduces the values bit for bit."""
    i = np.arange(spec["n"], dtype=np.float64)
    t = i * spec["step"]
    u = t - np.floor(t)
    if spec.get("levels"):
        u = np.floor(u * spec["levels"]) / spec["levels"]
    if spec.get("shape") == "square":
        u = u * u
    return spec.get("shift", 0.0) + spec.get("scale", 1.0) * u


def gen(n, step, **kw):
    return {"n": n, "step": step, **kw}


# ---------------------------------------------------------------- reference values


def ks(ref, cur, mode, alt):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = stats.ks_2samp(ref, cur, alternative=alt, method=mode)
    switched = any("Switching" in str(w.message) for w in caught)
    if mode == "auto":
        method = "exact" if max(len(ref), len(cur)) <= 10000 and not switched else "asymptotic"
    else:
        method = "asymptotic" if switched or mode == "asymp" else "exact"
    p = float(r.pvalue)
    return {"mode": {"asymp": "asymptotic"}.get(mode, mode), "alternative": alt,
            "statistic": float(r.statistic), "pvalue": None if math.isnan(p) else p,
            "location": float(r.statistic_location), "sign": int(r.statistic_sign), "method": method}


def edges_for(ref, bins):
    q = np.quantile(ref, np.arange(1, bins) / bins)
    out = []
    for e in q:
        if not out or e != out[-1]:
            out.append(float(e))
    return out


def js_exact(ref_counts, cur_counts):
    """The Jensen-Shannon divergence in bits, in 50-digit decimal arithmetic."""
    getcontext().prec = 50
    nr, nc = sum(ref_counts), sum(cur_counts)
    total = Decimal(0)
    for a, b in zip(ref_counts, cur_counts):
        p, q = Decimal(int(a)) / nr, Decimal(int(b)) / nc
        m = (p + q) / 2
        for x in (p, q):
            if x > 0:
                total += x * (x / m).ln()
    return float(total / Decimal(2).ln() / 2)


def table_stats(ref_counts, cur_counts):
    r = np.asarray(ref_counts, dtype=np.float64)
    c = np.asarray(cur_counts, dtype=np.float64)
    p, q = r / r.sum(), c / c.sum()
    pe, qe = np.maximum(p, EPS), np.maximum(q, EPS)
    out = {
        "psi": float(np.sum((qe - pe) * np.log(qe / pe))),
        "psi_empty_ref": int(np.sum(p < EPS)), "psi_empty_cur": int(np.sum(q < EPS)),
        "js_distance": float(distance.jensenshannon(r, c, base=2)),
        "js_divergence_exact": js_exact(ref_counts, cur_counts),
        "hellinger": float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2))),
    }
    keep = (r > 0) | (c > 0)
    r, c = r[keep], c[keep]
    for yates in (True, False):
        if len(r) < 2:
            out[f"chi2_yates_{str(yates).lower()}"] = {"statistic": 0.0, "pvalue": 1.0, "dof": 0}
            continue
        res = stats.chi2_contingency(np.array([r, c]), correction=yates)
        out[f"chi2_yates_{str(yates).lower()}"] = {"statistic": float(res.statistic),
                                                  "pvalue": float(res.pvalue), "dof": int(res.dof)}
    if len(r) < 2:
        out["gof"] = {"statistic": 0.0, "pvalue": 1.0, "dof": 0}
    else:
        with np.errstate(divide="ignore"):
            res = stats.chisquare(c, r / r.sum() * c.sum())
        s = float(res.statistic)
        out["gof"] = {"statistic": "inf" if math.isinf(s) else s, "pvalue": float(res.pvalue), "dof": len(r) - 1}
    return out


# ---------------------------------------------------------------- cases


NUMERIC, CATEGORICAL = [], []


def jsonable(a):
    return [None if math.isnan(x) else float(x) for x in a]


def numeric(name, ref, cur, modes=("auto",), alts=("two-sided",), bins=(10,), note=""):
    case = {"name": name}
    if note:
        case["note"] = note
    if isinstance(ref, dict):
        case["gen_ref"], case["gen_cur"] = ref, cur
        ref, cur = gen_column(ref), gen_column(cur)
    else:
        case["ref"], case["cur"] = jsonable(ref), jsonable(cur)
    ref, cur = np.asarray(ref, dtype=np.float64), np.asarray(cur, dtype=np.float64)
    case["missing_ref"], case["missing_cur"] = int(np.isnan(ref).sum()), int(np.isnan(cur).sum())
    ref, cur = ref[~np.isnan(ref)], cur[~np.isnan(cur)]
    case["ks"] = [ks(ref, cur, m, a) for m in modes for a in alts]
    case["wasserstein"] = float(stats.wasserstein_distance(ref, cur))
    case["binned"] = []
    sr = np.sort(ref)
    for b in bins:
        e = edges_for(sr, b)
        rc = np.bincount(np.searchsorted(e, ref, side="right"), minlength=len(e) + 1)
        cc = np.bincount(np.searchsorted(e, cur, side="right"), minlength=len(e) + 1)
        case["binned"].append({"bins": b, "edges": e, "ref_counts": rc.tolist(), "cur_counts": cc.tolist(),
                               **table_stats(rc, cc)})
    NUMERIC.append(case)


def categorical(name, labels=None, ref_counts=None, cur_counts=None, ref=None, cur=None, note=""):
    case = {"name": name}
    if note:
        case["note"] = note
    if ref is not None:
        case["ref"], case["cur"] = ref, cur
        case["missing_ref"], case["missing_cur"] = ref.count(""), cur.count("")
        labels = sorted(set(ref + cur) - {""})
        ref_counts = [ref.count(x) for x in labels]
        cur_counts = [cur.count(x) for x in labels]
    else:
        case["ref_counts"], case["cur_counts"] = ref_counts, cur_counts
    case["labels"] = labels
    case.update(table_stats(ref_counts, cur_counts))
    CATEGORICAL.append(case)


def add_numeric_cases():
    MANY = dict(modes=ALL_MODES, alts=ALL_ALTS)
    numeric("normal_small", rng.normal(0, 1, 20), rng.normal(0.5, 1, 30), **MANY)
    numeric("normal_37_25", rng.normal(0, 1, 37), rng.normal(0, 1.5, 25), **MANY, bins=(10, 5))
    numeric("normal_equal_n_60", rng.normal(0, 1, 60), rng.normal(0.3, 1, 60), **MANY)
    numeric("shift_200_150", rng.normal(0, 1, 200), rng.normal(0.4, 1, 150), **MANY, bins=(10, 20))
    numeric("ties_integers", rng.integers(0, 5, 100).astype(float), rng.integers(0, 6, 80).astype(float), **MANY,
            note="many equal values: duplicate quantile edges are merged")
    numeric("ties_two_values", np.repeat([0.0, 1.0], [70, 30]), np.repeat([0.0, 1.0], [40, 60]), **MANY)
    x = rng.normal(0, 1, 50)
    numeric("identical_samples", x, x.copy(), **MANY)
    numeric("identical_constant", np.full(30, 2.5), np.full(20, 2.5), **MANY,
            note="one bin: chi-squared has dof 0")
    numeric("disjoint", np.arange(1.0, 51.0), np.arange(100.0, 131.0), **MANY)
    numeric("disjoint_equal_n", np.arange(1.0, 41.0), np.arange(-40.0, 0.0), **MANY)
    numeric("one_element_each", [1.0], [2.0], **MANY, note="asymptotic two-sided p is NaN: round(0.5) = 0")
    numeric("one_element_ref", [0.3], rng.normal(0, 1, 10), **MANY)
    numeric("one_element_cur", rng.normal(0, 1, 12), [5.0], **MANY)
    numeric("nan_in_both", np.concatenate([rng.normal(0, 1, 40), [np.nan] * 7]),
            np.concatenate([[np.nan] * 3, rng.normal(0.2, 1, 35), [np.nan]]), **MANY)
    numeric("negative_zero_and_zero", [-0.0, 0.0, 1.0, -1.0, 0.0], [0.0, -0.0, -0.0, 2.0], **MANY)
    numeric("cur_outside_ref_range", rng.uniform(0, 1, 300), rng.uniform(-0.5, 1.5, 200), **MANY)
    numeric("heavy_tails", rng.standard_cauchy(400), rng.standard_cauchy(300) * 1.3, **MANY)
    numeric("tiny_p_exact", rng.normal(0, 1, 300), rng.normal(1.5, 1, 250), **MANY)
    # One-sided exact with unequal sizes: C(n1+n2, n1) fits a float64 up to
    # n1+n2 ~ 1029; beyond that scipy (and Vigil) fall back to asymptotic.
    numeric("one_sided_exact_500_480", rng.normal(0, 1, 500), rng.normal(0.15, 1, 480), modes=["exact"], alts=ALL_ALTS)
    numeric("one_sided_fallback_600_500", rng.normal(0, 1, 600), rng.normal(0.15, 1, 500), modes=["exact"],
            alts=ALL_ALTS)
    # Asymptotic mode on small samples visits the small-n branches of kstwo.
    for n1, n2, sh in [(60, 40, 0.0), (60, 40, 0.6), (200, 150, 0.1), (90, 70, 1.2), (15, 12, 0.2)]:
        numeric(f"asymptotic_small_{n1}_{n2}_shift{sh}", rng.normal(0, 1, n1), rng.normal(sh, 1, n2),
                modes=["asymp"], alts=ALL_ALTS)
    # Generated columns: the exact/asymptotic boundary and large samples.
    phi = (math.sqrt(5) - 1) / 2
    rt2 = math.sqrt(2) - 1
    numeric("gen_10000_10000_auto_exact", gen(10000, phi), gen(10000, rt2, scale=1.02, shift=-0.005),
            modes=["auto", "asymp"], alts=ALL_ALTS, note="max(n) = 10000: auto is exact (equal-n square formula)")
    numeric("gen_10000_9000_auto_exact", gen(10000, phi), gen(9000, rt2, scale=1.03),
            modes=["auto", "asymp"], note="auto exact, unequal n (band recursion)")
    numeric("gen_10001_9000_auto_asymptotic", gen(10001, phi), gen(9000, rt2, scale=1.03),
            modes=["auto", "exact"], note="max(n) = 10001: auto is asymptotic")
    numeric("gen_9999_10000_ties", gen(9999, phi, levels=97), gen(10000, rt2, levels=89, scale=1.01),
            modes=["auto", "asymp"])
    numeric("gen_20000_15000_exact", gen(20000, phi, shape="square"), gen(15000, rt2, shape="square", scale=1.01),
            modes=["exact", "auto"], note="explicit exact beyond MAX_AUTO_N (lcm fits in int32)")
    numeric("gen_exact_lcm_too_large", gen(100003, phi), gen(30011, rt2, shift=0.002), modes=["exact"],
            note="lcm > 2^31-1: exact switches to asymptotic")
    numeric("gen_1M_100k_same", gen(1000000, phi), gen(100000, rt2), modes=["auto"], alts=ALL_ALTS,
            note="1M x 100k, same distribution")
    numeric("gen_1M_100k_shifted", gen(1000000, phi), gen(100000, rt2, shift=0.01), modes=["auto"], alts=ALL_ALTS)
    numeric("gen_1M_100k_scaled_ties", gen(1000000, phi, levels=1000), gen(100000, rt2, levels=1000, scale=1.05),
            modes=["auto"], alts=ALL_ALTS)
    numeric("gen_200k_150k_small_d", gen(200000, phi), gen(150000, rt2, shift=0.0002), modes=["auto"],
            note="tiny statistic: Durbin matrix branch of kstwo")


def add_categorical_cases():
    categorical("three_categories", ["a", "b", "c"], [50, 30, 20], [45, 35, 20])
    categorical("two_categories_yates", ["no", "yes"], [90, 10], [80, 20], note="dof 1: Yates correction")
    categorical("two_categories_yates_small_diff", ["no", "yes"], [10, 10], [10, 11],
                note="|observed - expected| < 0.5: the correction moves observed onto expected")
    categorical("two_categories_equal", ["x", "y"], [30, 70], [30, 70])
    categorical("zero_cell_in_cur", ["a", "b", "c", "d"], [40, 30, 20, 10], [50, 30, 20, 0])
    categorical("unseen_in_ref", ["a", "b", "c"], [60, 40, 0], [50, 40, 10],
                note="goodness of fit: expected 0, statistic inf, p 0")
    categorical("empty_in_both", ["a", "b", "c", "d"], [60, 0, 40, 5], [50, 0, 45, 5],
                note="a cell empty in both is left out of the chi-squared tests")
    categorical("single_category", ["only"], [10], [25], note="dof 0")
    categorical("two_cells_one_empty_both", ["a", "b"], [10, 0], [25, 0], note="one cell left: dof 0")
    k = 50
    categorical("fifty_categories", [f"c{i:02d}" for i in range(k)],
                rng.integers(0, 200, k).tolist(), rng.integers(0, 200, k).tolist())
    p = rng.dirichlet(np.ones(12))
    categorical("large_counts", [f"k{i}" for i in range(12)],
                rng.multinomial(1_000_000, p).tolist(), rng.multinomial(100_000, p * 0.98 + 0.02 / 12).tolist())
    categorical("disjoint_categories", ["a", "b", "c", "d"], [30, 20, 0, 0], [0, 0, 25, 25])
    ref = list(rng.choice(["red", "green", "blue", ""], 60, p=[0.4, 0.3, 0.2, 0.1]))
    cur = list(rng.choice(["red", "green", "blue", "violet", ""], 50, p=[0.3, 0.3, 0.2, 0.1, 0.1]))
    categorical("raw_values_with_missing", ref=[str(x) for x in ref], cur=[str(x) for x in cur],
                note='"" is missing: counted, not a category')


def kstwo_grid():
    rows = []
    for n in [1, 2, 3, 5, 10, 50, 100, 140, 141, 500, 1000, 5000, 20000, 90909, 100000, 100001, 250000]:
        xs = [0.4 / n, 0.6 / n, 0.9 / n, 1.5 / n, 0.5, 0.55, 0.9, 1 - 0.5 / n, 1 - 1.5 / n]
        xs += [c / math.sqrt(n) for c in (0.05, 0.3, 0.5, 0.8, 0.87, 1.0, 1.3, 1.6, 2.1, 2.5, 4, 10, 19)]
        for x in xs:
            if 0 < x < 1:
                rows.append([n, x, float(stats.kstwo.sf(x, n))])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--any-version", action="store_true")
    args = ap.parse_args()
    have = {"scipy": scipy.__version__, "numpy": np.__version__}
    if have != PINNED and not args.any_version:
        sys.exit(f"want {PINNED}, have {have}: install the pinned versions or pass --any-version")
    add_numeric_cases()
    add_categorical_cases()
    out = {
        "generator": "stats/stattest/testdata/generate.py",
        "seed": SEED,
        "versions": {**have, "python": platform.python_version()},
        "numeric": NUMERIC,
        "categorical": CATEGORICAL,
        "kstwo": kstwo_grid(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    n_ks = sum(len(c["ks"]) for c in NUMERIC)
    print(f"{len(NUMERIC)} numeric cases ({n_ks} KS results), {len(CATEGORICAL)} categorical cases, "
          f"{len(out['kstwo'])} kstwo points, {os.path.getsize(path)} bytes -> {path}")


if __name__ == "__main__":
    main()
