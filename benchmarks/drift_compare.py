"""SciPy, Evidently and Vigil's BenchmarkDriftDetect on one body.

Needs pandas below 3 (Evidently 0.7.23 does not import with pandas 3.1).
Writes the detect request body to a file (the shape's data, as
drift_scipy.py makes it: N(0, 1) values in shortest float text, every
other current feature shifted by 0.05), then times, in this one run:

- SciPy: json.loads of the body, np.asarray per column (parse), then
  scipy.stats.ks_2samp(method="auto") per feature (tests), as a Python
  service would answer POST /drift/detect;
- Evidently: json.loads again, pandas DataFrames built from the parsed
  columns (parse), then a Report with DataDriftPreset(method="ks") run
  on them (tests). KS is forced: Evidently's default for numeric columns
  of more than 1,000 reference rows (and more than 5 distinct values) is
  the Wasserstein distance, not a test, so the default would not compare
  like with like. Evidently runs in a child
  process with a time limit, so a timeout or running out of memory is
  reported instead of ending the run.

The Go side reads the same file: VIGIL_BENCH_DRIFT_BODY=PATH go test
-run '^$' -bench DriftDetect ./benchmarks, which --go runs after SciPy and
before Evidently (see RESULTS.md).

    python benchmarks/drift_compare.py 1000000 100000 50 --body /tmp/drift-body.json --go
"""
import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import scipy
from scipy import stats


def body(n_ref, n_cur, features):
    """The request body of the shape, as drift_scipy.py writes it."""
    rng = np.random.default_rng(42)
    ref = {f"feature_{f}": rng.standard_normal(n_ref).tolist() for f in range(features)}
    cur = {f"feature_{f}": (rng.standard_normal(n_cur) + (0.05 if f % 2 else 0)).tolist() for f in range(features)}
    return json.dumps({"model_id": "bench-model", "reference_data": ref, "current_data": cur})


def run_scipy(text):
    """Times json.loads plus arrays, then ks_2samp per feature."""
    t0, c0 = time.perf_counter(), time.process_time()
    req = json.loads(text)
    cols = {side: {k: np.asarray(v, dtype=np.float64) for k, v in req[side].items()}
            for side in ("reference_data", "current_data")}
    t1 = time.perf_counter()
    drifted = 0
    for name, ref in cols["reference_data"].items():
        drifted += stats.ks_2samp(ref, cols["current_data"][name], method="auto").pvalue < 0.05
    t2, c2 = time.perf_counter(), time.process_time()
    return {"parse": t1 - t0, "tests": t2 - t1, "total": t2 - t0, "cpu": c2 - c0, "drifted": int(drifted)}


def run_evidently(path):
    """Times json.loads plus DataFrames, then the drift report (in a child)."""
    import evidently
    import pandas as pd
    from evidently import DataDefinition, Dataset, Report
    from evidently.presets import DataDriftPreset

    with open(path) as f:
        text = f.read()
    t0, c0 = time.perf_counter(), time.process_time()
    req = json.loads(text)
    frames = {side: pd.DataFrame(req[side]) for side in ("reference_data", "current_data")}
    t1 = time.perf_counter()
    definition = DataDefinition(numerical_columns=list(frames["reference_data"].columns))
    ref = Dataset.from_pandas(frames["reference_data"], data_definition=definition)
    cur = Dataset.from_pandas(frames["current_data"], data_definition=definition)
    t2 = time.perf_counter()
    snapshot = Report([DataDriftPreset(method="ks")]).run(cur, ref)
    t3, c3 = time.perf_counter(), time.process_time()
    drifted = None
    for m in snapshot.dict().get("metrics", []):
        if str(m.get("metric_name", "")).startswith("DriftedColumnsCount"):
            drifted = m["value"]["count"]
    print(json.dumps({"parse": t1 - t0, "datasets": t2 - t1, "tests": t3 - t2, "total": t3 - t0, "cpu": c3 - c0,
                      "drifted": drifted, "versions": {"evidently": evidently.__version__, "pandas": pd.__version__}}))


def run_go(path, benchtime):
    """Runs BenchmarkDriftDetect on the body file and prints its results."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = ["go", "test", "-run", "^$", "-bench", "DriftDetect", "-benchtime", benchtime, "-timeout", "60m", "./benchmarks"]
    print(f"go: VIGIL_BENCH_DRIFT_BODY={path} {' '.join(cmd)}; load {os.getloadavg()}", flush=True)
    out = subprocess.run(cmd, cwd=repo, env={**os.environ, "VIGIL_BENCH_DRIFT_BODY": path},
                         capture_output=True, text=True)
    for line in (out.stdout + out.stderr).splitlines():
        if line.startswith(("Benchmark", "---", "FAIL", "ok", "cpu:")) or "body" in line:
            print("go: " + line.strip(), flush=True)
    print(f"go: done; load {os.getloadavg()}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ref", type=int)
    p.add_argument("cur", type=int)
    p.add_argument("features", type=int)
    p.add_argument("--body", default="/tmp/drift-body.json", help="where the body is written")
    p.add_argument("--evidently-timeout", type=float, default=2400, help="seconds")
    p.add_argument("--go", action="store_true", help="also run BenchmarkDriftDetect on the body, after SciPy")
    p.add_argument("--go-benchtime", default="3x")
    p.add_argument("--skip-evidently", action="store_true", help="time SciPy (and Go with --go) only")
    p.add_argument("--evidently-child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.evidently_child:
        run_evidently(a.body)
        return
    text = body(a.ref, a.cur, a.features)
    with open(a.body, "w") as f:
        f.write(text)
    print(f"python {platform.python_version()}, scipy {scipy.__version__}, numpy {np.__version__}; "
          f"shape {a.ref}x{a.cur}x{a.features}, body {len(text) / 1e6:.1f} MB in {a.body}; load {os.getloadavg()}")
    r = run_scipy(text)
    print(f"scipy: parse {r['parse']:.2f} s, ks_2samp {r['tests']:.2f} s, total {r['total']:.2f} s "
          f"(CPU {r['cpu']:.2f} s), "
          f"{r['drifted']} features drifted at 0.05; load {os.getloadavg()}", flush=True)
    del text
    gc.collect()
    if a.go:
        run_go(a.body, a.go_benchtime)
    if a.skip_evidently:
        return
    cmd = [sys.executable, __file__, str(a.ref), str(a.cur), str(a.features), "--body", a.body, "--evidently-child"]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.evidently_timeout)
    except subprocess.TimeoutExpired:
        print(f"evidently: timed out after {a.evidently_timeout:.0f} s; load {os.getloadavg()}")
        return
    if out.returncode != 0:
        print(f"evidently: failed (exit {out.returncode}, {time.perf_counter() - t0:.0f} s): {out.stderr[-2000:]}")
        return
    e = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"evidently {e['versions']['evidently']}, pandas {e['versions']['pandas']}: "
          f"parse (json.loads + DataFrames) {e['parse']:.2f} s, Dataset.from_pandas {e['datasets']:.2f} s, "
          f"report (DataDriftPreset, ks) {e['tests']:.2f} s, total {e['total']:.2f} s (CPU {e['cpu']:.2f} s), "
          f"{e['drifted']} features drifted; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
