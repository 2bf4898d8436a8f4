#!/usr/bin/env python3
"""Where the CPU of BenchmarkBatchIngest goes, in microseconds per prediction.

usage: pprof_stages.py PREDICTIONS BINARY PROFILE [PROFILE...]

Reads `go tool pprof -top -cum` of each CPU profile (client, server and
processors in one process) and prints one markdown column per profile: the
cumulative seconds of each stage's functions divided by PREDICTIONS (1M for
-benchtime 1000x). The stages are the RESULTS.md table's (issue 15).
"""
import re
import subprocess
import sys

# stage: (functions whose cum seconds add, functions whose cum seconds subtract)
STAGES = [
    ("benchmark client (building the bodies; its HTTP is elsewhere)", [r"benchmarks\.benchmarkIngest\.func1$"], []),
    ("HTTP + middleware excl. handler", [r"fasthttp\.\(\*Server\)\.serveConn$"], [r"ingest\.\(\*API\)\.logPredictions$"]),
    ("ingest handler: decode + validate + log encode", [r"ingest\.\(\*API\)\.logPredictions$"], [r"ingest\.\(\*API\)\.appendRecords$"]),
    ("log append (handler side)", [r"ingest\.\(\*API\)\.appendRecords$"], []),
    ("embedded log writer (commit)", [r"embeddedlog\.\(\*Log\)\.writer$"], []),
    ("consume (embeddedlog read / kgo fetch)", [r"embeddedlog\.\(\*Consumer\)\.Poll$", r"kgo\.\(\*source\)\.loopFetch$", r"kafka\.\(\*Source\)\.Poll$"], []),
    ("decode + parse documents once (processors.decode)", [r"processors\.\(\*Processor\)\.decode$"], []),
    ("unknown-model filter (live)", [r"processors\.\(\*Processor\)\.live$"], []),
    ("feature profiles + labels (profileBatch)", [r"processors\.profileBatch$"], []),
    ("store write (analytics.WriteChecked)", [r"analytics\.WriteChecked$"], []),
    ("explaining consumer group", [r"explaining\.\(\*Service\)\.Run$"], []),
    ("drafting consumer group", [r"drafting\.\(\*Drafter\)\.Run$"], []),
    ("GC (gcBgMarkWorker)", [r"runtime\.gcBgMarkWorker$"], []),
]

UNIT = {"ms": 1e-3, "s": 1.0, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}


def seconds(text):
    m = re.match(r"([0-9.]+)([a-zµ]+)", text)
    return float(m.group(1)) * UNIT[m.group(2)]


def profile(binary, path):
    out = subprocess.run(["go", "tool", "pprof", "-top", "-cum", "-nodecount=1000000", binary, path],
                         capture_output=True, text=True, check=True).stdout
    total = seconds(re.search(r"Total samples = (\S+)", out).group(1))
    cum = {}
    for line in out.splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and re.match(r"[0-9.]+[a-zµ]+$", f[3]):
            cum[f[5]] = max(cum.get(f[5], 0.0), seconds(f[3]))
    return total, cum


def pick(cum, patterns):
    return sum(v for name, v in cum.items() if any(re.search(p, name) for p in patterns))


def main():
    n = float(sys.argv[1])
    binary, paths = sys.argv[2], sys.argv[3:]
    cols = [profile(binary, p) for p in paths]
    print("| stage | " + " | ".join(paths) + " |")
    print("|---|" + "---|" * len(paths))
    for name, plus, minus in STAGES:
        vals = [(pick(c, plus) - pick(c, minus)) / n * 1e6 for _, c in cols]
        print(f"| {name} | " + " | ".join(f"{v:.2f}" for v in vals) + " |")
    print("| total CPU samples per prediction | " + " | ".join(f"{t / n * 1e6:.1f}" for t, _ in cols) + " |")


if __name__ == "__main__":
    main()
