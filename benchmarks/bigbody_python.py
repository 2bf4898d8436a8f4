"""The Python side of BenchmarkBigBodies (RESULTS.md, "Single events and big
bodies (issue 15)"): what a Python service would do with the same bytes.

    VIGIL_BENCH_BIG_OUT=/tmp/big go test -run '^$' -bench BigBodies -benchtime 3x ./benchmarks
    /root/.cache/vigil-engines/fairlearn/bin/python benchmarks/bigbody_python.py /tmp/big

(the venv: python3 -m venv /root/.cache/vigil-engines/fairlearn &&
/root/.cache/vigil-engines/fairlearn/bin/pip install fairlearn scipy numpy pandas).

- bias.json (POST /bias/audit, label-supplied form): json.loads, the
  columns to NumPy arrays (parse), then per sensitive attribute one
  fairlearn MetricFrame of count, selection_rate, true_positive_rate and
  false_positive_rate with its difference() and ratio(), which between
  them give every figure the audit reports (audit).
- drift.json (POST /drift/detect): json.loads, np.asarray per column
  (parse), scipy.stats.ks_2samp(method="auto") per feature (tests), as
  benchmarks/drift_scipy.py does.

--only bias or --only drift times one body. Each is timed --repeat times (default 3); the best wall time is printed with
its CPU time. One core, as Python runs.
"""
import argparse
import json
import os
import time

import fairlearn
import numpy as np
import scipy
from fairlearn.metrics import MetricFrame, count, false_positive_rate, selection_rate, true_positive_rate
from scipy import stats


def bias(text):
    t0 = time.perf_counter()
    req = json.loads(text)
    yt, yp = np.asarray(req["y_true"]), np.asarray(req["y_pred"])
    groups = {name: np.asarray(req["group_data"][name]) for name in req["sensitive_attributes"]}
    t1 = time.perf_counter()
    for col in groups.values():
        mf = MetricFrame(metrics={"count": count, "selection_rate": selection_rate,
                                  "tpr": true_positive_rate, "fpr": false_positive_rate},
                         y_true=yt, y_pred=yp, sensitive_features=col)
        mf.difference(), mf.ratio()
    return t1 - t0, time.perf_counter() - t1


def drift(text):
    t0 = time.perf_counter()
    req = json.loads(text)
    cols = {side: {k: np.asarray(v, dtype=np.float64) for k, v in req[side].items()}
            for side in ("reference_data", "current_data")}
    t1 = time.perf_counter()
    for name, ref in cols["reference_data"].items():
        stats.ks_2samp(ref, cols["current_data"][name], method="auto")
    return t1 - t0, time.perf_counter() - t1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=("bias", "drift"), help="time one body only")
    args = ap.parse_args()
    print(f"fairlearn {fairlearn.__version__}, scipy {scipy.__version__}, numpy {np.__version__}")
    for name, f in (("bias.json", bias), ("drift.json", drift)):
        if args.only and not name.startswith(args.only):
            continue
        with open(os.path.join(args.dir, name)) as fh:
            text = fh.read()
        best = None
        for _ in range(args.repeat):
            c0 = time.process_time()
            parse, work = f(text)
            cpu = time.process_time() - c0
            if best is None or parse + work < best[0] + best[1]:
                best = (parse, work, cpu)
        parse, work, cpu = best
        print(f"{name}: {len(text) / 1e6:.1f} MB; parse {parse:.3f} s, work {work:.3f} s, "
              f"total {parse + work:.3f} s (CPU {cpu:.3f} s), best of {args.repeat}")


if __name__ == "__main__":
    main()
