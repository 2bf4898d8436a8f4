package ingest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/platform/web/webtest"
	"github.com/vigilhq/vigil/registry"
)

// discardLog takes every record and keeps none.
type discardLog struct{}

func (discardLog) Append(context.Context, []eventlog.Record) error { return nil }

// activeModels finds every model, active.
type activeModels struct{}

func (activeModels) Model(_ context.Context, orgID, id string) (registry.Model, error) {
	return registry.Model{ID: id, OrgID: orgID, Status: registry.StatusActive}, nil
}

// testApp serves the ingest routes without authentication, on a log that
// keeps nothing.
func testApp() *fiber.App {
	app := web.NewApp(web.Options{})
	web.Mount(app, (&API{Log: discardLog{}, Models: activeModels{}}).Routes(), nil)
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

// batchAnswer is the gist of a batch call's answer: the status, then
// "logged L total T failed F" and each item error as index:field, or the
// error code and the fields its details name.
func batchAnswer(t *testing.T, status int, answer []byte) string {
	t.Helper()
	var a struct {
		batchResult
		Error *web.EnvelopeBody `json:"error"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		t.Fatalf("answer %s: %v", answer, err)
	}
	var parts []string
	if a.Error != nil {
		parts = append(parts, a.Error.Code)
		for f := range a.Error.Details {
			parts = append(parts, f)
		}
		if errs, ok := a.Error.Details["errors"].([]any); ok {
			parts = parts[:1]
			for _, e := range errs {
				e := e.(map[string]any)
				parts = append(parts, fmt.Sprintf("%v:%v", e["index"], e["field"]))
			}
		}
	} else {
		parts = append(parts, fmt.Sprintf("logged %d total %d failed %d", a.Logged, a.Total, a.Failed))
		for _, e := range a.Errors {
			parts = append(parts, fmt.Sprintf("%d:%s", e.Index, e.Field))
		}
	}
	slices.Sort(parts[1:])
	return fmt.Sprint(status, " ", strings.Join(parts, " "))
}

// answers returns a check that app answers body at path with want, as
// batchAnswer writes it.
func answers(t *testing.T, app *fiber.App) func(path, body, want string) {
	return func(path, body, want string) {
		t.Helper()
		status, answer := post(t, app, path, []byte(body))
		if got := batchAnswer(t, status, answer); got != want {
			t.Errorf("%s %.200s: got %s, want %s", path, body, got, want)
		}
	}
}

// TestLogBatchAnswers pins what POST /predictions/log/batch and
// /metrics/batch answer: a valid batch, invalid items reported by index
// and field, and a body refused whole.
func TestLogBatchAnswers(t *testing.T) {
	f := answers(t, testApp())
	const p, m = "/predictions/log/batch", "/metrics/batch"
	ok := `{"input_data":{"a":1},"output_data":{"b":2}}`
	batch := func(items ...string) string {
		return `{"model_id":"m","predictions":[` + strings.Join(items, ",") + `]}`
	}
	f(p, batch(ok, ok), "201 logged 2 total 2 failed 0")
	f(p, batch(), "422 VALIDATION_ERROR predictions")
	f(p, string(benchBatch(3, false)), "201 logged 3 total 3 failed 0")
	f(p, string(benchBatch(3, true)), "201 logged 2 total 3 failed 1 2:latency_ms")
	f(p, batch(ok, `{"input_data":{}}`, ok, `{"output":1}`, `{"latency_ms":"x"}`),
		"201 logged 2 total 5 failed 3 1:output_data 3:output 4:latency_ms")
	f(p, batch(`{"model_id":"other","input_data":{},"output_data":{}}`, `{"model_id":"m","input_data":{},"output_data":{}}`),
		"201 logged 1 total 2 failed 1 0:model_id")
	f(p, batch(`{"input_data":[],"output_data":{}}`, `{"input_data":{"k":"\u0000"},"output_data":{}}`), "422 VALIDATION_ERROR predictions")
	f(p, batch(`{"input_data":[],"output_data":{},"metadata":"x"}`), "422 VALIDATION_ERROR 0:input_data 0:metadata")
	f(p, batch(`{"prediction_id":"a\u0000","prediction_id":"b","input_data":{},"output_data":{}}`), "422 VALIDATION_ERROR predictions[0].prediction_id")
	f(p, `{"model_id":"m","predictions":[`+ok+`],"extra":1,"Model_ID":"m"}`, "422 VALIDATION_ERROR Model_ID extra")
	f(p, `{"model_id":"m","predictions":[`+ok+`],"predictions":[`+ok+`,`+ok+`]}`, "422 VALIDATION_ERROR predictions")
	f(p, `{"model_id":"m","model_id":"m","predictions":[`+ok+`]}`, "422 VALIDATION_ERROR model_id")
	f(p, batch(ok, `{"input_data":{"x":[1e400]},"output_data":{}}`), "422 VALIDATION_ERROR predictions[1].input_data.x[0]")
	f(p, batch(`{"input_data":{},"output_data":{"y":"\udc00"}}`), "422 VALIDATION_ERROR predictions[0].output_data.y")
	f(p, `{"model_\u0069d":"m","predictions":[`+ok+`]}`, "201 logged 1 total 1 failed 0")
	f(p, `{"model_id":5,"predictions":{}}`, "422 VALIDATION_ERROR model_id predictions")
	f(p, `{"model_id":"m","predictions":null}`, "422 VALIDATION_ERROR predictions")
	f(p, `{"model_id":"m"}`, "422 VALIDATION_ERROR predictions")
	f(p, `{"model_id":" ","predictions":[]}`, "422 VALIDATION_ERROR model_id predictions")
	f(p, `{"model_id":"m\u0000","predictions":[]}`, "422 VALIDATION_ERROR model_id")
	f(p, `{"model_id":"m","predictions":[`+strings.Repeat(ok+",", MaxPredictionsPerBatch)+ok+`]}`, "422 VALIDATION_ERROR predictions")
	f(p, ``, "400 BAD_REQUEST")
	f(p, `[]`, "400 BAD_REQUEST")
	f(p, `{"model_id":"m","predictions":[]} {}`, "400 BAD_REQUEST")
	f(p, `{"model_id":"m","predictions":[`+ok+`,]}`, "400 BAD_REQUEST")
	f(p, `{"model_id":"m","predictions":[{"input_data":{"a":1},"output_data":{"b":2}}}`, "400 BAD_REQUEST")
	f(m, `{"model_id":"m","metrics":[{"metric_type":"f1","value":0.8},{"metric_type":"f1"},{"value":1,"metadata":[]}]}`,
		"201 logged 1 total 3 failed 2 1:value 2:metadata")
	f(m, `{"model_id":"m","metrics":[]}`, "422 VALIDATION_ERROR metrics")
	f(m, `{"model_id":"m","metrics":[{"metric_type":"f1","value":0.8}],"predictions":[]}`, "422 VALIDATION_ERROR predictions")
}

// TestLogExactNames: field names are taken exactly as written; a key that
// matches one only case-insensitively is refused as an unknown field, by
// index in a batch.
func TestLogExactNames(t *testing.T) {
	f := answers(t, testApp())
	ok := `{"input_data":{"A":1},"output_data":{"B":2},"metadata":{"C":3}}`
	f("/predictions/log", `{"model_id":"m","Input_Data":{},"output_data":{}}`, "422 VALIDATION_ERROR Input_Data")
	f("/predictions/log", `{"model_id":"m","input_data":{},"output_data":{},"LATENCY_MS":1}`, "422 VALIDATION_ERROR LATENCY_MS")
	f("/predictions/log", `{"model_id":"m","input_data":{"Input_Data":1},"output_data":{}}`, "201 logged 0 total 0 failed 0")
	f("/metrics", `{"model_id":"m","Metric_Type":"f1","value":1}`, "422 VALIDATION_ERROR Metric_Type")
	f("/llm/completions", `{"model_id":"m","provider":"p","model_name":"g","tokens":{"Prompt_Tokens":1}}`,
		"422 VALIDATION_ERROR tokens.Prompt_Tokens")
	f("/llm/completions", `{"model_id":"m","provider":"p","model_name":"g","tokens":{"prompt_tokens":1000000001}}`,
		"422 VALIDATION_ERROR tokens.prompt_tokens")
	f("/predictions/log/batch", `{"model_id":"m","predictions":[`+ok+`,{"input_data":{},"output_data":{},"Latency_MS":1},`+ok+`]}`,
		"201 logged 2 total 3 failed 1 1:Latency_MS")
	f("/predictions/log/batch", `{"model_id":"m","predictions":[{"Input_Data":{},"output_data":{}}]}`,
		"422 VALIDATION_ERROR 0:Input_Data")
	f("/metrics/batch", `{"model_id":"m","metrics":[{"metric_type":"f1","value":1},{"metric_type":"f1","VALUE":1}]}`,
		"201 logged 1 total 2 failed 1 1:VALUE")
	f("/predictions/log/batch", `{"model_id":"m","Predictions":[`+ok+`]}`, "422 VALIDATION_ERROR Predictions predictions")
}

// sameBatch fails t unless readBatch, which decodes a valid batch in one
// pass, reads body exactly as readBatchSlow does: the same error, or the
// same model, items and item errors.
func sameBatch[R any, E public, PR request[R, E]](t *testing.T, body []byte, field string) {
	t.Helper()
	const max = 3
	got, gotErr := readBatch[R, E, PR](body, field, max)
	want, wantErr := readBatchSlow[R, E, PR](body, field, max)
	if !reflect.DeepEqual(answerOf(gotErr), answerOf(wantErr)) {
		t.Fatalf("%T batch %.300q: got error %v, want %v", got, body, gotErr, wantErr)
	}
	for _, b := range []*batchItems[R]{&got, &want} {
		if len(b.Valid) == 0 {
			b.Valid = nil
		}
		slices.SortFunc(b.Errors, func(x, y itemError) int {
			return cmp.Or(cmp.Compare(x.Index, y.Index), strings.Compare(x.Field, y.Field))
		})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%T batch %.300q: got %+v, want %+v", got, body, got, want)
	}
}

// answerOf is what the client sees of err, nil for none.
func answerOf(err error) any {
	var e *web.Error
	if !errors.As(err, &e) {
		return err
	}
	return []any{e.Status, e.Code, e.Message, e.Details}
}

// batchBodies are batch bodies of predictions and metrics, valid and not.
func batchBodies() [][]byte {
	bodies := [][]byte{benchBatch(3, false), benchBatch(3, true), benchBatch(4, false)}
	for _, items := range []string{
		`[{"metric_type":"f1","value":0.8},{"metric_type":"f1"}]`,
		`[{"metric_type":"f1","value":0.8,"metadata":{"k":[1,"v"]}}]`,
		`[{"input_data":{"a":1},"output_data":{"b":2},"prediction_id":"p","latency_ms":1}]`,
		`[{"input_data":{"a":1},"output_data":{"b":2},"Latency_MS":1,"latency_ms":2,"model_id":"m"}]`,
		`[{"input_data":{"a":1},"output_data":{"b":2},"model_id":"n"}]`,
		`[{"input_data":{"a":1},"output_data":{"b":2},"metadata":{"k":"\u0000"}}]`,
		`[]`, `null`, `{}`, `[1]`,
	} {
		for _, field := range []string{"predictions", "metrics"} {
			bodies = append(bodies,
				[]byte(`{"model_id":"m","`+field+`":`+items+`}`),
				[]byte(`{"`+field+`":`+items+`,"model_id":"m"}`),
				[]byte(`{"model_id":"m","`+field+`":`+items+`,"`+field+`":[]}`),
				[]byte(`{"MODEL_ID":"m","`+field+`":`+items+`}`))
		}
	}
	deep := strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000)
	bodies = append(bodies, []byte(`{"model_id":"m","predictions":[{"input_data":{"a":`+deep+`},"output_data":{}}]}`))
	return append(bodies, webtest.Bodies()...)
}

func TestReadBatchSameAsSlow(t *testing.T) {
	// The one pass must serve valid batches, else nothing is compared.
	if b, ok := readBatchFast[predictionRequest, eventlog.Prediction](benchBatch(3, false), "predictions", 3); !ok || len(b.Valid) != 3 {
		t.Fatalf("readBatchFast of 3 valid predictions: got %d valid, ok %v; want 3, true", len(b.Valid), ok)
	}
	metrics := []byte(`{"model_id":"m","metrics":[{"metric_type":"f1","value":0.8,"metadata":{"k":[1]}}]}`)
	if b, ok := readBatchFast[metricRequest, eventlog.Metric](metrics, "metrics", 3); !ok || len(b.Valid) != 1 {
		t.Fatalf("readBatchFast of a valid metric: got %d valid, ok %v; want 1, true", len(b.Valid), ok)
	}
	for _, body := range batchBodies() {
		sameBatch[predictionRequest, eventlog.Prediction](t, body, "predictions")
		sameBatch[metricRequest, eventlog.Metric](t, body, "metrics")
	}
}

// FuzzReadBatchSameAsSlow is TestReadBatchSameAsSlow on arbitrary bodies.
// Run it with
//
//	go test -run '^$' -fuzz FuzzReadBatchSameAsSlow -fuzztime 3m ./ingest/
func FuzzReadBatchSameAsSlow(f *testing.F) {
	for _, body := range batchBodies() {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameBatch[predictionRequest, eventlog.Prediction](t, body, "predictions")
		sameBatch[metricRequest, eventlog.Metric](t, body, "metrics")
	})
}
