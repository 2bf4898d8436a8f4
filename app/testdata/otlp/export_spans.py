"""Export LLM spans to Vigil with the real OpenTelemetry Python SDK (app/otlp_python_test.go).

Two instrumented "applications", each its own TracerProvider and resource, export over OTLP/HTTP
(protobuf) with the SDK's own exporter, configured only by the standard environment variables
OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_COMPRESSION:
nothing here is Vigil's.

* service.name py-genai-app: GENAI_SPANS chat spans by the OpenTelemetry GenAI semantic
  conventions (gen_ai.system openai, gpt-4o-mini, 1000 input and 200 output tokens, the prompt and
  completion as gen_ai.content.* events), lasting 100, 200 and 300 ms in turn.
* service.name py-openinference-app: OI_SPANS OpenInference LLM spans (llm.model_name
  claude-3-5-haiku, llm.provider anthropic, 500 prompt and 100 completion tokens, input.value and
  output.value), 400 ms each, each under an OpenInference CHAIN span (not an LLM call).

The spans' times are set explicitly, so their durations are exact. Exits 1 when an export failed.
"""

import os
import sys
import time

from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace import SpanKind, Status, StatusCode

GENAI_SPANS = int(os.environ.get("GENAI_SPANS", "30"))
OI_SPANS = int(os.environ.get("OI_SPANS", "20"))
MS = 1_000_000

failures = []


class CheckedExporter(OTLPSpanExporter):
    """The SDK's exporter, remembering a failed export so that the test can tell."""

    def export(self, spans):
        result = super().export(spans)
        if result != SpanExportResult.SUCCESS:
            failures.append(len(spans))
        return result


def provider(service):
    p = TracerProvider(resource=Resource.create({"service.name": service}))
    p.add_span_processor(BatchSpanProcessor(CheckedExporter()))
    return p


def genai(p):
    tracer = p.get_tracer("genai-app")
    t0 = time.time_ns() - 3600 * 1000 * MS
    for i in range(GENAI_SPANS):
        start = t0 + i * 1000 * MS
        span = tracer.start_span("chat gpt-4o-mini", kind=SpanKind.CLIENT, start_time=start, attributes={
            "gen_ai.system": "openai",
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini",
            "gen_ai.usage.input_tokens": 1000,
            "gen_ai.usage.output_tokens": 200,
        })
        span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": f"question {i}"})
        span.add_event("gen_ai.content.completion", {"gen_ai.completion": f"answer {i}"})
        span.end(end_time=start + (100 + (i % 3) * 100) * MS)


def openinference(p):
    tracer = p.get_tracer("openinference-app")
    t0 = time.time_ns() - 3600 * 1000 * MS
    for i in range(OI_SPANS):
        start = t0 + i * 1000 * MS
        chain = tracer.start_span("chain", start_time=start, attributes={
            SpanAttributes.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.CHAIN.value,
            SpanAttributes.INPUT_VALUE: f"question {i}",
        })
        ctx = trace.set_span_in_context(chain)
        llm = tracer.start_span("llm", context=ctx, start_time=start, attributes={
            SpanAttributes.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.LLM.value,
            SpanAttributes.LLM_MODEL_NAME: "claude-3-5-haiku",
            SpanAttributes.LLM_PROVIDER: "anthropic",
            SpanAttributes.LLM_TOKEN_COUNT_PROMPT: 500,
            SpanAttributes.LLM_TOKEN_COUNT_COMPLETION: 100,
            SpanAttributes.LLM_TOKEN_COUNT_TOTAL: 600,
            SpanAttributes.INPUT_VALUE: f"question {i}",
            SpanAttributes.OUTPUT_VALUE: f"answer {i}",
        })
        llm.set_status(Status(StatusCode.OK))
        llm.end(end_time=start + 400 * MS)
        chain.end(end_time=start + 450 * MS)


def main():
    apps = [(provider("py-genai-app"), genai), (provider("py-openinference-app"), openinference)]
    for p, emit in apps:
        emit(p)
    for p, _ in apps:
        if not p.force_flush(timeout_millis=60_000):
            print("force_flush timed out", file=sys.stderr)
            return 1
        p.shutdown()
    if failures:
        print(f"{len(failures)} exports failed ({sum(failures)} spans)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
