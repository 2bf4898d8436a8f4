#!/usr/bin/env python3
"""Writes golden.json: quantiles of a few seeded datasets from the reference
DDSketch (the ddsketch PyPI package, pinned below) at relative accuracy 0.01,
with the exact quantiles under the same rank convention, for
golden_test.go to compare the Go sketch with.

Run it in a throwaway virtual environment:

    python3 -m venv /tmp/dd-venv
    /tmp/dd-venv/bin/pip install ddsketch==3.0.1
    /tmp/dd-venv/bin/python stats/quantile/testdata/golden.py

The data are generated here with Python's seeded random module and rounded to
six significant digits, and stored in golden.json, so Go reads exactly the
same float64 values. If numpy is installed too, the script also checks that
the exact quantiles equal numpy.quantile(method="lower").
"""

import json
import math
import os
import random

import ddsketch

DDSKETCH_VERSION = "3.0.1"
ALPHA = 0.01
BIN_LIMIT = 2048
QUANTILES = [0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.33, 0.5, 0.66, 0.75, 0.9,
             0.95, 0.99, 0.995, 0.999, 1]


def round6(v):
    return float("%.6g" % v)


def lognormal_latency(r):
    return r.lognormvariate(math.log(0.08), 0.9)


def exponential(r):
    return r.expovariate(1 / 0.05)


def uniform(r):
    return r.uniform(0, 1000)


def bimodal(r):
    if r.random() < 0.7:
        return r.lognormvariate(math.log(0.005), 0.3)
    return r.lognormvariate(math.log(2), 0.4)


def wide(r):
    return 10 ** r.uniform(-6, 9)


def mixed(r):
    k = r.randrange(5)
    if k == 0:
        return 0.0
    v = 10 ** r.uniform(-9, 6)
    return -v if k < 3 else v


DATASETS = [
    ("lognormal-latency", lognormal_latency, 1, 2000),
    ("exponential", exponential, 2, 2000),
    ("uniform", uniform, 3, 1000),
    ("bimodal", bimodal, 4, 2000),
    ("wide-1e-6-1e9", wide, 5, 2000),
    ("mixed-sign-zeros", mixed, 6, 1500),
    ("small", lognormal_latency, 7, 5),
]


def exact(sorted_values, q):
    # Rank floor(q*(n-1)), the product in float64 as in the Go package.
    return sorted_values[int(math.floor(q * (len(sorted_values) - 1)))]


def check_numpy(name, values, want):
    try:
        import numpy
    except ImportError:
        return
    got = [float(numpy.quantile(values, q, method="lower")) for q in QUANTILES]
    if got != want:
        raise SystemExit("%s: numpy 'lower' quantiles %r, want %r" % (name, got, want))


def main():
    if ddsketch.__version__ != DDSKETCH_VERSION:
        raise SystemExit("want ddsketch %s, have %s" % (DDSKETCH_VERSION, ddsketch.__version__))
    out = {
        "generator": "golden.py",
        "ddsketch_version": DDSKETCH_VERSION,
        "sketch": "LogCollapsingLowestDenseDDSketch(relative_accuracy=%g, bin_limit=%d)" % (ALPHA, BIN_LIMIT),
        "alpha": ALPHA,
        "quantiles": QUANTILES,
        "datasets": [],
    }
    for name, gen, seed, n in DATASETS:
        r = random.Random(seed)
        values = [round6(gen(r)) for _ in range(n)]
        s = ddsketch.LogCollapsingLowestDenseDDSketch(relative_accuracy=ALPHA, bin_limit=BIN_LIMIT)
        for v in values:
            s.add(v)
        sv = sorted(values)
        check_numpy(name, values, [exact(sv, q) for q in QUANTILES])
        out["datasets"].append({
            "name": name,
            "seed": seed,
            "values": values,
            "exact": [exact(sv, q) for q in QUANTILES],
            "ddsketch": [s.get_quantile_value(q) for q in QUANTILES],
        })
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
