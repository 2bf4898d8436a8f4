#!/usr/bin/env python3
"""Time fairlearn's MetricFrame on the rows of the Go benchmark BenchmarkAudit10M.

Not run by the tests. Use the virtual environment of generate.py:

    /tmp/fair-venv/bin/python stats/fairness/testdata/bench_fairlearn.py [--rows N]

The rows come from synthetic.py, the formula that synthetic_test.go writes in
Go. Timed, per attribute (gender, race): one MetricFrame over count,
selection_rate, true_positive_rate and false_positive_rate, then its
difference() and ratio(), which between them give every number the Go audit
reports (demographic parity, equal opportunity, equalized odds and disparate
impact). Row generation is not timed, as in the Go benchmark. It prints wall
and CPU time: on a shared machine the CPU time is the steadier figure.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from synthetic import synthetic_rows  # noqa: E402

import fairlearn  # noqa: E402
from fairlearn.metrics import (  # noqa: E402
    MetricFrame,
    count,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)


def audit(gender, race, yt, yp):
    out = {}
    for name, col in (("gender", gender), ("race", race)):
        mf = MetricFrame(
            metrics={"count": count, "selection_rate": selection_rate,
                     "tpr": true_positive_rate, "fpr": false_positive_rate},
            y_true=yt, y_pred=yp, sensitive_features=col,
        )
        out[name] = (mf.by_group, mf.difference(), mf.ratio())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    gender, race, yt, yp = synthetic_rows(args.rows)
    best = cpu = None
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = audit(gender, race, yt, yp)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        if best is None or dt < best:
            best, cpu = dt, dc
    for name, (by_group, diff, ratio) in out.items():
        print(f"{name}:\n{by_group}\ndifference:\n{diff}\nratio:\n{ratio}\n")
    print(f"fairlearn {fairlearn.__version__}: MetricFrame over {args.rows} rows, 2 attributes: "
          f"{best:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat})")


if __name__ == "__main__":
    main()
