package drift

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/platform/web"
)

// run parses body and detects with cfg.
func run(t *testing.T, body string, cfg Config) (Result, error) {
	t.Helper()
	req, err := ParseRequest([]byte(body))
	if err != nil {
		return Result{}, err
	}
	return Detector{}.Detect(t.Context(), req, cfg)
}

// mustRun is run that fails the test on an error.
func mustRun(t *testing.T, body string, cfg Config) Result {
	t.Helper()
	res, err := run(t, body, cfg)
	if err != nil {
		t.Fatalf("detect %s: got error %v, want nil", clip(body), err)
	}
	return res
}

// wantProblem fails the test unless err is a web.Error with status whose
// details name field (field "" checks only the status).
func wantProblem(t *testing.T, err error, status int, field string) {
	t.Helper()
	var e *web.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v, want a %d naming %q", err, status, field)
	}
	if e.Status != status {
		t.Fatalf("got status %d (%v), want %d naming %q", e.Status, e, status, field)
	}
	if field != "" {
		if _, ok := e.Details[field]; !ok {
			t.Fatalf("got details %v, want one naming %q", e.Details, field)
		}
	}
}

// body renders a detect request.
func body(t *testing.T, ref, cur map[string]any, config map[string]any) string {
	t.Helper()
	m := map[string]any{"model_id": "m1", "reference_data": ref, "current_data": cur}
	if config != nil {
		m["config"] = config
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// normal returns n values from N(mean, 1), seeded.
func normal(seed uint64, n int, mean float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = mean + r.NormFloat64()
	}
	return out
}

// categories returns n labels drawn with the given weights, seeded.
func categories(seed uint64, n int, labels []string, weights []float64) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	total := 0.0
	for _, w := range weights {
		total += w
	}
	out := make([]string, n)
	for i := range out {
		u := r.Float64() * total
		k := 0
		for ; k < len(weights)-1 && u >= weights[k]; k++ {
			u -= weights[k]
		}
		out[i] = labels[k]
	}
	return out
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
