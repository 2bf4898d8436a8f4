"""The SciPy side of BenchmarkDriftDetect (RESULTS.md, issue 4).

Times what a Python service would do with the same request: json.loads of
the body, each column to a NumPy array, then scipy.stats.ks_2samp per
feature (method "auto", as POST /drift/detect's default for numbers). The
body has the benchmark's shape and float text (shortest repr of N(0, 1)
values, every other current feature shifted by 0.05).

    python3 benchmarks/drift_scipy.py 1000000 100000 50
"""
import json
import sys
import time

import numpy as np
import scipy
from scipy import stats


def body(n_ref, n_cur, features):
    rng = np.random.default_rng(42)
    ref = {f"feature_{f}": rng.standard_normal(n_ref).tolist() for f in range(features)}
    cur = {f"feature_{f}": (rng.standard_normal(n_cur) + (0.05 if f % 2 else 0)).tolist() for f in range(features)}
    return json.dumps({"model_id": "bench-model", "reference_data": ref, "current_data": cur})


def main():
    n_ref, n_cur, features = (int(a) for a in sys.argv[1:4])
    text = body(n_ref, n_cur, features)
    print(f"scipy {scipy.__version__}, numpy {np.__version__}; body {len(text) / 1e6:.1f} MB")
    t0 = time.perf_counter()
    req = json.loads(text)
    cols = {side: {k: np.asarray(v, dtype=np.float64) for k, v in req[side].items()} for side in ("reference_data", "current_data")}
    t1 = time.perf_counter()
    for name, ref in cols["reference_data"].items():
        stats.ks_2samp(ref, cols["current_data"][name], method="auto")
    t2 = time.perf_counter()
    print(f"parse {t1 - t0:.2f} s, ks_2samp {t2 - t1:.2f} s, total {t2 - t0:.2f} s")


if __name__ == "__main__":
    main()
