"""Export LLM spans to Vigil with the OpenTelemetry Python SDK's OTLP/HTTP exporter (BenchmarkOTLPIngest).

Makes SPANS GenAI chat spans (gen_ai.* attributes, a prompt and a completion of about 200 characters,
tokens) under the resource attribute vigil.model_id, then exports them with the SDK's own
OTLPSpanExporter (protobuf; endpoint and headers from OTEL_EXPORTER_OTLP_*) in batches of BATCH, the
BatchSpanProcessor's default size, from one thread as one SDK process does. Only the export is timed.
Prints "export_start export_end" as Unix seconds. Exits 1 when an export failed.

With STREAM=1 (BenchmarkOTLPPhoenix, which stops the server mid-load) it prints "ok N" after each
export the server took (N spans), flushed at once, and at the first export that failed prints
"failed" and stops (exit 0): the spans of the exports answered with success are the accepted ones.
Without MODEL_ID the resource names no Vigil model (for Phoenix).
"""

import os
import sys
import time

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

SPANS = int(os.environ["SPANS"])
STREAM = os.environ.get("STREAM") == "1"
BATCH = int(os.environ.get("BATCH", "512"))
MS = 1_000_000


class Keep(SpanExporter):
    def __init__(self):
        self.spans = []

    def export(self, spans):
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def main():
    keep = Keep()
    resource = {"service.name": "bench-app"}
    if os.environ.get("MODEL_ID"):
        resource["vigil.model_id"] = os.environ["MODEL_ID"]
    p = TracerProvider(resource=Resource.create(resource))
    p.add_span_processor(SimpleSpanProcessor(keep))
    tracer = p.get_tracer("bench")
    t0 = time.time_ns()
    for i in range(SPANS):
        start = t0 + i * MS
        s = tracer.start_span("chat gpt-4o-mini", start_time=start, attributes={
            "gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.usage.input_tokens": 120 + i % 50, "gen_ai.usage.output_tokens": 40 + i % 20,
            "gen_ai.prompt": f"Summarise ticket {i}: " + "the customer cannot log in after the update. " * 4,
            "gen_ai.completion": f"Ticket {i}: " + "reset the session token and retry the login. " * 4,
        })
        s.end(end_time=start + (200 + i % 300) * MS)
    exporter = OTLPSpanExporter()
    begin = time.time()
    for i in range(0, len(keep.spans), BATCH):
        batch = keep.spans[i:i + BATCH]
        if exporter.export(batch) != SpanExportResult.SUCCESS:
            if STREAM:
                print("failed", flush=True)
                return 0
            print("an export failed", file=sys.stderr)
            return 1
        if STREAM:
            print(f"ok {len(batch)}", flush=True)
    print(f"{begin} {time.time()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
