#!/usr/bin/env python3
"""A real scikit-learn model behind the three protocols Vigil calls, on loopback.

    server.py [--port N]   prints "listening on PORT" once it serves

Routes (the model is named "credit"; any other name answers 404):
  POST /v2/models/credit/infer      Open Inference Protocol V2 (KServe V2): one FP64 input [n, 4]
  POST /v2/models/credit-multi/infer  the same model answering two outputs, "scaled" ([n, 2]: 2y and -y)
                                    first and "predict" second, as KServe models that answer several do
  POST /v1/models/credit:predict    KServe V1: {"instances": [[...], ...]}
  POST /invocations                 MLflow: {"dataframe_split": {"columns": [...], "data": [[...]]}}
  GET  /v2/health/ready             200
  GET  /stats                       {"requests": n, "rows": [rows of each request]}: tests check batching

The model is trained here from a fixed seed (train()), so that generate.py explains the same one.
"""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

FEATURES = ["age", "income", "debt", "tenure"]


def train():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 4))
    y = 2 * X[:, 0] + X[:, 1] * X[:, 2] + np.sin(X[:, 3]) + 0.1 * rng.normal(size=400)
    return GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)


MODEL = train()
LOCK = threading.Lock()
STATS = {"requests": 0, "rows": []}


def predict(rows):
    X = np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES))
    with LOCK:
        STATS["requests"] += 1
        STATS["rows"].append(len(X))
    return [float(v) for v in MODEL.predict(X)]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code, body):
        raw = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        if self.path == "/v2/health/ready":
            return self.answer(200, {"ready": True})
        if self.path == "/stats":
            with LOCK:
                return self.answer(200, dict(STATS))
        self.answer(404, {"error": "no route " + self.path})

    def do_POST(self):
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path in ("/v2/models/credit/infer", "/v2/models/credit-multi/infer"):
                inp = body["inputs"][0]
                if inp["datatype"] != "FP64" or inp["shape"][1] != len(FEATURES):
                    return self.answer(400, {"error": "want one FP64 input of shape [n, 4]"})
                out = predict(inp["data"])
                outputs = [{"name": "predict", "shape": [len(out)], "datatype": "FP64", "data": out}]
                if "multi" in self.path:
                    scaled = [v for y in out for v in (2 * y, -y)]
                    outputs.insert(0, {"name": "scaled", "shape": [len(out), 2], "datatype": "FP64", "data": scaled})
                name = self.path.split("/")[3]
                return self.answer(200, {"model_name": name, "id": body.get("id", ""), "outputs": outputs})
            if self.path == "/v1/models/credit:predict":
                return self.answer(200, {"predictions": predict(body["instances"])})
            if self.path == "/invocations":
                split = body["dataframe_split"]
                order = [split["columns"].index(f) for f in FEATURES]
                return self.answer(200, {"predictions": predict([[r[i] for i in order] for r in split["data"]])})
            self.answer(404, {"error": "no model at " + self.path})
        except (KeyError, ValueError, IndexError, TypeError) as e:
            self.answer(400, {"error": repr(e)})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    srv = ThreadingHTTPServer(("127.0.0.1", ap.parse_args().port), Handler)
    print("listening on", srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
