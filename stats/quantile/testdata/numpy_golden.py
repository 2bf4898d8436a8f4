#!/usr/bin/env python3
"""Writes numpy_golden.json: samples and their quantiles by NumPy's default
definition (numpy.quantile, method="linear", Hyndman and Fan's type 7), the
goldens of TestHybridNumPy.

Rerun from this folder with NumPy installed, for instance:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy
    /tmp/venv/bin/python numpy_golden.py

The samples come from a seeded generator, so a rerun writes the same file.
"""

import json

import numpy as np

EXACT_LIMIT = 256  # quantile.ExactLimit
QUANTILES = [0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0]
SMALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 16, 20, 32, 50, 64, 99, 100, 101,
         128, 200, 255, EXACT_LIMIT]
LARGE = [EXACT_LIMIT + 1, 300, 1000, 4000]


def sample(rng, kind, n):
    """n latencies in milliseconds of one kind."""
    if kind == "lognormal":  # median 80 ms, a long tail
        return rng.lognormal(np.log(80), 0.9, n)
    if kind == "integers":  # whole milliseconds: many ties
        return rng.integers(1, 40, n).astype(float)
    if kind == "exponential":  # rounded to microseconds
        return np.round(rng.exponential(25, n), 3)
    raise ValueError(kind)


def main():
    rng = np.random.default_rng(20261125)
    kinds = ["lognormal", "integers", "exponential"]
    datasets = [{"name": "issue-11", "values": [9.0, 12.0]}]
    for i, n in enumerate(SMALL + LARGE):
        kind = kinds[i % len(kinds)]
        datasets.append({"name": f"{kind}-{n}", "values": [float(v) for v in sample(rng, kind, n)]})
    for d in datasets:
        d["quantiles"] = [float(v) for v in np.quantile(np.array(d["values"]), QUANTILES, method="linear")]
    out = {"numpy_version": np.__version__, "method": "linear", "exact_limit": EXACT_LIMIT,
           "quantiles": QUANTILES, "datasets": datasets}
    with open("numpy_golden.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
