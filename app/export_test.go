package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/query/tabular"
	"github.com/vigilhq/vigil/query/tabular/tabulartest"
)

func TestExportFormats(t *testing.T) {
	eachPipeline(t, testExportFormats)
}

// testExportFormats logs predictions that trip formats up, some twice, and
// reads them back through the export and the query in every format: each
// decodes, with the format's own reader, to exactly what was logged, once.
func testExportFormats(t *testing.T, s *server) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	other := s.model(key, "fraud", "1")
	items := make([]map[string]any, 300)
	for i := range items {
		items[i] = map[string]any{"prediction_id": fmt.Sprintf("p-%04d,\"q\"", i),
			"input_data":  map[string]any{"age": i % 90, "name": "Zoë \"Z\", line\nbreak", "tags": []any{"a", i}},
			"output_data": map[string]any{"churn": i%3 == 0, "score": float64(i) / 7},
			"metadata":    map[string]any{"region": "eu"}}
		if i%4 != 0 {
			items[i]["latency_ms"] = float64(i) + 0.125
		}
	}
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items[100:200]}).want(t, 201)
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": other, "input_data": map[string]any{},
		"output_data": map[string]any{}}).want(t, 201)
	waitFor(t, "the predictions in stats", func() bool {
		return s.do("GET", "/predictions/models/"+model+"/stats", key, nil).at("total_predictions") == 300.0 &&
			s.do("GET", "/predictions/models/"+other+"/stats", key, nil).at("total_predictions") == 1.0
	})

	// What was logged, as the API answers it: newest first from the
	// query, which the export gives oldest first.
	newest := decode(t, "json", s.do("POST", "/predictions/query", key, map[string]any{"model_id": model, "limit": 1000}).want(t, 200).raw)
	logged(t, newest, items)
	oldest := slices.Clone(newest)
	slices.Reverse(oldest)

	for _, f := range tabular.Formats {
		r := s.do("GET", "/predictions/export?format="+f.Name+"&model_id="+model, key, nil).want(t, 200)
		if got := r.header.Get("Content-Disposition"); got != `attachment; filename="predictions-`+model+f.Extension+`"` {
			t.Errorf("%s: got Content-Disposition %q", f.Name, got)
		}
		if err := tabulartest.Same(decode(t, f.Name, r.raw), oldest); err != nil {
			t.Errorf("export as %s: %v", f.Name, err)
		}
		q := s.do("POST", "/predictions/query?format="+f.Name, key, map[string]any{"model_id": model, "limit": 1000}).want(t, 200)
		if err := tabulartest.Same(decode(t, f.Name, q.raw), newest); err != nil {
			t.Errorf("query as %s: %v", f.Name, err)
		}
	}
	if all := decode(t, "csv", s.do("GET", "/predictions/export?format=csv", key, nil).want(t, 200).raw); len(all) != 301 {
		t.Errorf("got %d predictions exported without a model, want the organization's 301", len(all))
	}
	windows(t, s, key, model, oldest)
}

// windows reads windows whose ends are the logged rows' own timestamps,
// and a microsecond either side, through the export and the query. Each
// answers exactly the rows of [start_time, end_time), in order: a row on
// start_time is in and one on end_time out, however many rows share that
// microsecond (rows logged together often do).
func windows(t *testing.T, s *server, key, model string, oldest []eventlog.Prediction) {
	t.Helper()
	at := func(i int) time.Time { return oldest[i].Timestamp }
	us := time.Microsecond
	// The first window starts on a row that shares its microsecond with
	// the row before, when one does: the case that once failed.
	shared, tie := 0, 150
	for i := len(oldest) - 1; i > 0; i-- {
		if at(i).Equal(at(i - 1)) {
			shared, tie = shared+1, i
		}
	}
	t.Logf("%d of %d rows share their microsecond with the row before", shared, len(oldest))
	// Four windows: the export's rate limit (reports, 10 an hour) takes
	// the formats' six and these.
	for _, w := range []struct{ from, to time.Time }{
		{at(tie), time.Time{}}, {at(100), at(200)}, {at(100).Add(us), at(200).Add(us)}, {at(100).Add(-us), at(200).Add(-us)},
	} {
		var want []eventlog.Prediction
		for _, p := range oldest {
			if !p.Timestamp.Before(w.from) && (w.to.IsZero() || p.Timestamp.Before(w.to)) {
				want = append(want, p)
			}
		}
		params := url.Values{"format": {"arrow"}, "model_id": {model}}
		body := map[string]any{"model_id": model, "limit": 1000}
		for name, v := range map[string]time.Time{"start_time": w.from, "end_time": w.to} {
			if !v.IsZero() {
				params.Set(name, v.Format(time.RFC3339Nano))
				body[name] = v.Format(time.RFC3339Nano)
			}
		}
		exported := decode(t, "arrow", s.do("GET", "/predictions/export?"+params.Encode(), key, nil).want(t, 200).raw)
		if err := tabulartest.Same(exported, want); err != nil {
			t.Errorf("export of [%v, %v): %v", w.from, w.to, err)
		}
		queried := decode(t, "json", s.do("POST", "/predictions/query", key, body).want(t, 200).raw)
		slices.Reverse(want)
		if err := tabulartest.Same(queried, want); err != nil {
			t.Errorf("query of [%v, %v): %v", w.from, w.to, err)
		}
	}
}

// decode reads an answer in the format called name.
func decode(t *testing.T, name string, b []byte) []eventlog.Prediction {
	t.Helper()
	got, err := tabulartest.Read(name, b)
	if err != nil {
		t.Fatalf("read %s: %v (%d bytes)", name, err, len(b))
	}
	return got.Predictions
}

// logged checks ps hold each of items once, with the values logged.
func logged(t *testing.T, ps []eventlog.Prediction, items []map[string]any) {
	t.Helper()
	if len(ps) != len(items) {
		t.Fatalf("got %d predictions, want the %d logged, once each", len(ps), len(items))
	}
	byID := map[string]eventlog.Prediction{}
	for _, p := range ps {
		byID[p.PredictionID] = p
	}
	for _, item := range items {
		p, ok := byID[item["prediction_id"].(string)]
		latency, reported := item["latency_ms"].(float64)
		switch {
		case !ok:
			t.Fatalf("prediction %s is missing", item["prediction_id"])
		case reported != (p.LatencyMS != nil) || reported && *p.LatencyMS != latency:
			t.Fatalf("prediction %s: got latency %v, want %v", p.PredictionID, p.LatencyMS, item["latency_ms"])
		case fmt.Sprint(jsonRound(t, p.InputData)) != fmt.Sprint(jsonRound(t, item["input_data"])) ||
			fmt.Sprint(jsonRound(t, p.OutputData)) != fmt.Sprint(jsonRound(t, item["output_data"])) ||
			fmt.Sprint(jsonRound(t, p.Metadata)) != "map[region:eu]":
			t.Fatalf("prediction %s: got %s %s %s, want %v %v", p.PredictionID, p.InputData, p.OutputData, p.Metadata,
				item["input_data"], item["output_data"])
		}
	}
}

func TestExportTenancy(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "input_data": map[string]any{},
		"output_data": map[string]any{}}).want(t, 201)
	waitFor(t, "the prediction", func() bool {
		return s.do("GET", "/predictions/models/"+model+"/stats", key, nil).at("total_predictions") == 1.0
	})
	stranger := s.signUp("stranger")
	for _, f := range []string{"json", "csv", "parquet"} {
		s.do("GET", "/predictions/export?format="+f+"&model_id="+model, stranger, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("POST", "/predictions/query?format="+f, stranger, map[string]any{"model_id": model}).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		if got := decode(t, f, s.do("GET", "/predictions/export?format="+f, stranger, nil).want(t, 200).raw); len(got) != 0 {
			t.Fatalf("got %d of another organization's predictions as %s, want none", len(got), f)
		}
	}
	s.do("GET", "/predictions/export?model_id=00000000-0000-0000-0000-000000000000", key, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
	s.do("GET", "/predictions/export?format=xlsx", key, nil).wantField(t, "format")
	s.do("GET", "/predictions/export?modelid="+model, key, nil).wantField(t, "modelid")
	if r := s.do("GET", "/predictions/export", key, nil).want(t, 200); r.header.Get("X-RateLimit-Limit") != "10" {
		t.Fatalf("got X-RateLimit-Limit %q, want the reports bucket's 10", r.header.Get("X-RateLimit-Limit"))
	}
}

// jsonRound is v as it comes back from JSON: numbers as float64.
func jsonRound(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
