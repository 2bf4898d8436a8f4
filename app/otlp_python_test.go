package app

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
)

// TestOTLPPythonExporter runs two applications instrumented with the real
// OpenTelemetry Python SDK (testdata/otlp/export_spans.py), configured by
// the standard OTEL_EXPORTER_OTLP_* variables alone: GenAI spans of
// py-genai-app and OpenInference spans of py-openinference-app show up in
// GET /llm/metrics with their tokens, cost (the built-in prices) and
// latency, each application a model registered under its service.name.
// Gzipped on the embedded pipeline, plain on Kafka with ClickHouse.
func TestOTLPPythonExporter(t *testing.T) {
	py := testenv.URL(t, testenv.OTelPython)
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		compression := "none"
		if strings.Contains(t.Name(), "embedded") {
			compression = "gzip"
		}
		cmd := exec.Command(py, "testdata/otlp/export_spans.py")
		cmd.Env = append(os.Environ(),
			"OTEL_EXPORTER_OTLP_ENDPOINT="+strings.TrimSuffix(s.base, "/api/v1"),
			"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20"+key,
			"OTEL_EXPORTER_OTLP_COMPRESSION="+compression,
			"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("export_spans.py: %v\n%s", err, out)
		}
		for _, app := range []struct {
			service, name, provider                string
			completions, prompt, completion, avgMS float64
			cost                                   float64
		}{
			// gpt-4o-mini: 0.15 and 0.60 per million; claude-3-5-haiku: 0.80 and 4.00.
			{"py-genai-app", "gpt-4o-mini", "openai", 30, 30_000, 6_000, 200, 30 * (1000*0.15 + 200*0.60) / 1e6},
			{"py-openinference-app", "claude-3-5-haiku", "anthropic", 20, 10_000, 2_000, 400, 20 * (500*0.80 + 100*4.00) / 1e6},
		} {
			ms := s.do("GET", "/models?search="+app.service, key, nil).want(t, 200)
			if len(ms.list) != 1 {
				t.Fatalf("got %s, want one model registered as %s", ms.raw, app.service)
			}
			id := ms.list[0].(map[string]any)["id"].(string)
			var m response
			waitFor(t, app.service+"'s completions", func() bool {
				m = s.do("GET", "/llm/metrics?model_id="+id, key, nil).want(t, 200)
				return m.at("totals.completions") == app.completions
			})
			by := "by_model." + app.name + "."
			avg, _ := m.at(by + "avg_latency_ms").(float64)
			cost, _ := m.at(by + "cost").(float64)
			if m.at(by+"completions") != app.completions || m.at(by+"prompt_tokens") != app.prompt ||
				m.at(by+"completion_tokens") != app.completion || !near(avg, app.avgMS) || !near(cost, app.cost) ||
				m.at("by_provider."+app.provider+".completions") != app.completions || m.at("totals.errors") != 0.0 {
				t.Errorf("%s: got %s, want %v completions of %s from %s, %v + %v tokens costing %v, %v ms on average",
					app.service, m.raw, app.completions, app.name, app.provider, app.prompt, app.completion, app.cost, app.avgMS)
			}
		}
	})
}

// TestOTLPOpenInferenceOpenAI runs an application that calls the real
// `openai` Python client, instrumented by OpenInference's
// openinference-instrumentation-openai and exporting with the OpenTelemetry
// SDK (testdata/otlp/openai_app.py), against a stub of OpenAI's API on
// loopback that answers as gpt-4o-mini-2024-07-18 with 42 + 8 tokens after
// at least 150 ms. Without any Vigil-specific code the calls show up in
// GET /llm/metrics under the model registered as its service.name: the
// model the API answered with, its provider, the tokens, the cost by the
// built-in price of gpt-4o-mini, and latencies of at least the stub's
// delay, on both pipelines.
func TestOTLPOpenInferenceOpenAI(t *testing.T) {
	py := testenv.URL(t, testenv.OTelPython)
	const calls, delayMS = 12, 150.0
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		cmd := exec.Command(py, "testdata/otlp/openai_app.py")
		cmd.Env = append(os.Environ(),
			"OTEL_EXPORTER_OTLP_ENDPOINT="+strings.TrimSuffix(s.base, "/api/v1"),
			"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20"+key,
			"CALLS=12", "DELAY_MS=150",
			"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openai_app.py: %v\n%s", err, out)
		}
		ms := s.do("GET", "/models?search=py-openai-app", key, nil).want(t, 200)
		if len(ms.list) != 1 {
			t.Fatalf("got %s, want one model registered as py-openai-app", ms.raw)
		}
		id := ms.list[0].(map[string]any)["id"].(string)
		var m response
		waitFor(t, "the calls' completions", func() bool {
			m = s.do("GET", "/llm/metrics?model_id="+id, key, nil).want(t, 200)
			return m.at("totals.completions") == float64(calls)
		})
		by := "by_model.gpt-4o-mini-2024-07-18."
		cost, _ := m.at(by + "cost").(float64)
		wantCost := calls * (42*0.15 + 8*0.60) / 1e6 // gpt-4o-mini: 0.15 and 0.60 per million tokens
		for _, q := range []string{"avg_latency_ms", "p50_latency_ms", "p99_latency_ms"} {
			if v, _ := m.at(by + q).(float64); v < delayMS {
				t.Errorf("got %s %v, want at least the stub's %v ms", q, m.at(by+q), delayMS)
			}
		}
		if m.at(by+"completions") != float64(calls) || m.at(by+"prompt_tokens") != calls*42.0 ||
			m.at(by+"completion_tokens") != calls*8.0 || !near(cost, wantCost) ||
			m.at("by_provider.openai.completions") != float64(calls) || m.at("totals.errors") != 0.0 {
			t.Errorf("got %s, want %d completions of gpt-4o-mini-2024-07-18 from openai, %d + %d tokens costing %v",
				m.raw, calls, calls*42, calls*8, wantCost)
		}
	})
}
