"""An application calling the OpenAI Python client, instrumented by OpenInference (app/otlp_python_test.go).

openinference-instrumentation-openai instruments the real `openai` client; the OpenTelemetry
Python SDK's exporter sends its spans over OTLP/HTTP, configured only by the standard
OTEL_EXPORTER_OTLP_* variables, under service.name py-openai-app: nothing here is Vigil's.

The client talks to a stub of OpenAI's chat completions API on loopback (a few lines below), which
answers every call as gpt-4o-mini-2024-07-18 with 42 prompt and 8 completion tokens, after at least
DELAY_MS milliseconds. CALLS calls are made. Exits 1 when an export failed.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from export_spans import CheckedExporter, failures

CALLS = int(os.environ.get("CALLS", "12"))
DELAY_MS = int(os.environ.get("DELAY_MS", "150"))


class Stub(BaseHTTPRequestHandler):
    """POST /v1/chat/completions as OpenAI answers it, with usage."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(DELAY_MS / 1000)
        answer = json.dumps({
            "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Reset the session token: " + body["messages"][-1]["content"]}}],
            "usage": {"prompt_tokens": 42, "completion_tokens": 8, "total_tokens": 50},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def main():
    stub = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    provider = TracerProvider(resource=Resource.create({"service.name": "py-openai-app"}))
    provider.add_span_processor(BatchSpanProcessor(CheckedExporter()))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{stub.server_address[1]}/v1", api_key="sk-stub")
    for i in range(CALLS):
        client.chat.completions.create(model="gpt-4o-mini",
                                       messages=[{"role": "user", "content": f"ticket {i}: cannot log in"}])
    provider.shutdown()
    stub.shutdown()
    if failures:
        print(f"failed exports of {failures} spans", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
