package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// discardLog takes every record and keeps none.
type discardLog struct{}

func (discardLog) Append(context.Context, []Record) error { return nil }

// activeModels finds every model, active.
type activeModels struct{}

func (activeModels) Model(_ context.Context, orgID, id string) (registry.Model, error) {
	return registry.Model{ID: id, OrgID: orgID, Status: registry.StatusActive}, nil
}

// testApp serves the ingest routes without authentication, on a log that
// keeps nothing.
func testApp() *fiber.App {
	app := web.NewApp(web.Options{})
	for _, r := range (&API{Log: discardLog{}, Models: activeModels{}}).Routes() {
		app.Add(r.Method, r.Path, r.Handler)
	}
	return app
}

// post sends body to path and returns the answer's status and body.
func post(tb testing.TB, app *fiber.App, path string, body []byte) (int, []byte) {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := app.Test(req, -1)
	if err != nil {
		tb.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("POST %s: reading the answer: %v", path, err)
	}
	return res.StatusCode, answer
}

// benchModel is the model of the benchmarks' predictions.
const benchModel = "0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b"

// benchPrediction is prediction i as a tabular model logs it: ten input
// features (numbers, strings, a boolean, a list, a nested object), a small
// output and metadata; the shape of benchmarks/jsondecode_test.go.
func benchPrediction(i int) string {
	return fmt.Sprintf(`{"prediction_id":"pred-%08d","input_data":{"age":%d,"tenure_months":%d,"monthly_charges":%g,`+
		`"total_charges":%g,"plan":"pro","contract":"month-to-month","payment_method":"credit_card",`+
		`"paperless_billing":%t,"services":["phone","internet","streaming_tv"],"address":{"country":"DE",`+
		`"city":"Berlin","postcode":"10115","lat":52.52,"lon":13.405}},"output_data":{"churn":%t,"score":%g,`+
		`"label":"retain"},"latency_ms":%g,"metadata":{"region":"eu-west-1","model_version":"v3.2.1",`+
		`"request_id":"req-%08d"}}`,
		i, 18+i%60, i%120, 19.5+float64(i%1000)/10, 1234.56+float64(i), i%2 == 0, i%3 == 0, float64(i%1000)/1000,
		float64(i%50)+0.25, i)
}

// benchBatch is a batch body of n predictions; with bad, its last one
// has a latency_ms of the wrong type.
func benchBatch(n int, bad bool) []byte {
	items := make([]string, n)
	for i := range items {
		items[i] = benchPrediction(i)
	}
	if bad {
		items[n-1] = strings.Replace(items[n-1], `"latency_ms":`, `"latency_ms":"fast","x":`, 1)
	}
	return []byte(`{"model_id":"` + benchModel + `","predictions":[` + strings.Join(items, ",") + `]}`)
}

// BenchmarkLogBatch times POST /predictions/log/batch of 1000 predictions
// through the handler (decoding, validation, events, their encoding for a
// log that keeps nothing): all valid, and with the last one invalid; and
// POST /predictions/log of one prediction.
func BenchmarkLogBatch(b *testing.B) {
	single := []byte(`{"model_id":"` + benchModel + `",` + benchPrediction(0)[1:])
	for _, c := range []struct {
		name, path string
		body       []byte
		status     int
		n          int
	}{
		{"valid", "/predictions/log/batch", benchBatch(1000, false), http.StatusCreated, 1000},
		{"one-invalid", "/predictions/log/batch", benchBatch(1000, true), http.StatusCreated, 1000},
		{"single", "/predictions/log", single, http.StatusCreated, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			app := testApp()
			if status, answer := post(b, app, c.path, c.body); status != c.status {
				b.Fatalf("got %d %s, want %d", status, answer, c.status)
			}
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				post(b, app, c.path, c.body)
			}
			b.ReportMetric(float64(c.n*b.N)/b.Elapsed().Seconds(), "predictions/s")
		})
	}
}
