"""Throughput of the Python SDK's BatchLogger from one Python process.

Logs N predictions with vigil.BatchLogger and flushes; then, as the baseline
in the same run and process, sends the same predictions as pre-built batches
of 1000 with a bare httpx client and orjson (what any client must at least
do). Prints one JSON line: the rates in predictions per second of wall time,
and per second of this process's CPU (what one Python process can sustain
when the server runs elsewhere, not on the same two cores).
Environment: VIGIL_URL, VIGIL_KEY, MODEL_ID, BASELINE_MODEL_ID, N.
"""
from __future__ import annotations

import json
import os
import time
import uuid

import httpx
import orjson

import vigil

url, key, n = os.environ["VIGIL_URL"], os.environ["VIGIL_KEY"], int(os.environ.get("N", "200000"))
c = vigil.Client(url, api_key=key)

logger = vigil.BatchLogger(c, os.environ["MODEL_ID"])
start, cpu0 = time.perf_counter(), time.process_time()
for i in range(n):
    logger.log({"age": i % 90, "plan": "pro"}, {"churn": i % 3 == 0}, latency_ms=float(i % 50 + 1))
logged = time.perf_counter() - start
assert logger.flush(timeout=600)
sent = time.perf_counter() - start
cpu = time.process_time() - cpu0  # this process's CPU, every thread: log() calls, encoding, HTTP
stats = logger.stats
logger.close()

model = os.environ["BASELINE_MODEL_ID"]
http = httpx.Client(timeout=60)
headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
start, cpu0 = time.perf_counter(), time.process_time()
for j in range(0, n, 1000):
    items = [{"prediction_id": str(uuid.uuid4()), "input_data": {"age": i % 90, "plan": "pro"},
              "output_data": {"churn": i % 3 == 0}, "latency_ms": float(i % 50 + 1)} for i in range(j, min(n, j + 1000))]
    r = http.post(url.rstrip("/") + "/api/v1/predictions/log/batch", content=orjson.dumps({"model_id": model, "predictions": items}),
                  headers=headers)
    assert r.status_code == 201, r.text
bare = time.perf_counter() - start
bare_cpu = time.process_time() - cpu0
print(json.dumps({"log_calls_per_s": n / logged, "logger_per_s": n / sent, "bare_per_s": n / bare,
                  "logger_per_cpu_s": n / cpu, "bare_per_cpu_s": n / bare_cpu,
                  "logged": stats.logged, "dropped": stats.dropped, "refused": stats.refused}))
