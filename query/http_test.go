package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/query"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// fakeStore streams n predictions of organization o1, then fails with
// fail when it is set. With gate set, its first stream closes waiting and
// then waits for gate to close after the first prediction.
type fakeStore struct {
	analytics.Store
	n       int
	fail    error
	gate    chan struct{}
	waiting chan struct{}
	once    sync.Once
}

func (s *fakeStore) EachPrediction(ctx context.Context, f analytics.PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	gated := false
	if s.gate != nil {
		s.once.Do(func() { gated = true })
	}
	return func(yield func(eventlog.Prediction, error) bool) {
		for i := range s.n {
			if i == 1 && gated {
				close(s.waiting)
				<-s.gate
			}
			l := float64(i)
			p := eventlog.Prediction{OrgID: f.OrgID, ModelID: "m1", PredictionID: fmt.Sprintf("p%06d", i), LatencyMS: &l,
				InputData: fmt.Appendf(nil, `{"x":%g}`, l), OutputData: []byte(`{}`), Metadata: []byte(`{}`),
				Timestamp: time.Unix(int64(i), 0).UTC()}
			if !yield(p, nil) {
				return
			}
		}
		if s.fail != nil {
			yield(eventlog.Prediction{}, s.fail)
		}
	}
}

// models knows model m1 of organization o1 only.
type models struct{}

func (models) Model(_ context.Context, orgID, id string) (registry.Model, error) {
	if orgID == "o1" && id == "m1" {
		return registry.Model{ID: id, OrgID: orgID}, nil
	}
	return registry.Model{}, store.ErrNotFound
}

// serve serves api's routes on loopback as organization o1 and returns
// the base address.
func serve(t *testing.T, api *query.API) string {
	t.Helper()
	app := web.NewApp(web.Options{Timeout: 5 * time.Second})
	app.Use(func(c *fiber.Ctx) error {
		identity.SetPrincipal(c, &identity.Principal{OrgID: "o1"})
		return c.Next()
	})
	api.Models = models{}
	web.Mount(app, api.Routes(), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { app.ShutdownWithTimeout(time.Second) })
	return "http://" + ln.Addr().String()
}

// get sends a request with Accept (none when empty) and reads the whole
// answer; the error is the transport's, sending or reading.
func get(t *testing.T, method, url, accept string) (*http.Response, []byte, error) {
	t.Helper()
	var body io.Reader
	if method == "POST" {
		body = strings.NewReader(`{"limit": 5}`)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return &http.Response{}, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func TestNegotiation(t *testing.T) {
	base := serve(t, &query.API{Store: &fakeStore{n: 3}})
	for _, c := range []struct {
		path, accept string
		status       int
		contentType  string
		disposition  string
	}{
		{"/predictions/export", "", 200, "application/json", `attachment; filename="predictions.json"`},
		{"/predictions/export?model_id=m1", "*/*", 200, "application/json", `attachment; filename="predictions-m1.json"`},
		{"/predictions/export", "text/csv", 200, "text/csv; charset=utf-8", `attachment; filename="predictions.csv"`},
		{"/predictions/export", "text/csv; charset=utf-8", 200, "text/csv; charset=utf-8", `attachment; filename="predictions.csv"`},
		{"/predictions/export", "text/*", 200, "text/csv; charset=utf-8", `attachment; filename="predictions.csv"`},
		{"/predictions/export", "application/json;q=0.5, application/vnd.apache.parquet", 200, "application/vnd.apache.parquet", `attachment; filename="predictions.parquet"`},
		{"/predictions/export", "application/vnd.apache.arrow.stream", 200, "application/vnd.apache.arrow.stream", `attachment; filename="predictions.arrows"`},
		{"/predictions/export", "application/x-ndjson", 200, "application/x-ndjson", `attachment; filename="predictions.ndjson"`},
		{"/predictions/export?format=parquet", "text/csv", 200, "application/vnd.apache.parquet", `attachment; filename="predictions.parquet"`},
		{"/predictions/export?format=csv", "image/png", 200, "text/csv; charset=utf-8", `attachment; filename="predictions.csv"`},
		{"/predictions/export", "image/png", 406, "application/json", ""},
		{"/predictions/export", "text/csv;q=0", 406, "application/json", ""},
		{"/predictions/export?format=xlsx", "", 422, "application/json", ""},
		{"/predictions/export?format=CSV", "text/csv", 422, "application/json", ""},
		{"/predictions/export?modelid=m1", "", 422, "application/json", ""},
		{"/predictions/export?model_id=m2", "", 404, "application/json", ""},
		{"/predictions/export?start_time=yesterday", "", 422, "application/json", ""},
		{"/predictions/query", "", 200, "application/json", ""},
		{"/predictions/query", "text/csv", 200, "text/csv; charset=utf-8", `attachment; filename="predictions.csv"`},
		{"/predictions/query?format=arrow", "application/json", 200, "application/vnd.apache.arrow.stream", `attachment; filename="predictions.arrows"`},
		{"/predictions/query", "application/xml", 406, "application/json", ""},
		{"/predictions/query?format=xml", "", 422, "application/json", ""},
	} {
		method := "GET"
		if strings.HasPrefix(c.path, "/predictions/query") {
			method = "POST"
		}
		res, body, err := get(t, method, base+c.path, c.accept)
		if err != nil {
			t.Fatalf("%s %s: %v", method, c.path, err)
		}
		if res.StatusCode != c.status || res.Header.Get("Content-Type") != c.contentType ||
			res.Header.Get("Content-Disposition") != c.disposition {
			t.Errorf("%s %s, Accept %q: got %d %q %q, want %d %q %q; body %.200s", method, c.path, c.accept,
				res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"),
				c.status, c.contentType, c.disposition, body)
		}
		if c.status == 422 || c.status == 406 {
			var e web.Envelope
			if err := json.Unmarshal(body, &e); err != nil || len(e.Error.Details) == 0 {
				t.Errorf("%s %s: got %s, want the error envelope with details", method, c.path, body)
			}
		}
	}
}

// TestExportErrorBeforeFirstRow: a store failing at once answers in the
// envelope.
func TestExportErrorBeforeFirstRow(t *testing.T) {
	base := serve(t, &query.API{Store: &fakeStore{fail: store.ErrUnavailable}})
	res, body, _ := get(t, "GET", base+"/predictions/export?format=csv", "")
	if res.StatusCode != 503 || !strings.Contains(string(body), `"code":"SERVICE_UNAVAILABLE"`) {
		t.Fatalf("got %d %s, want 503 in the envelope", res.StatusCode, body)
	}
}

// TestExportErrorMidStream: a store failing once the answer has begun
// leaves the body unfinished, which the client sees as a failed transfer,
// never as a short but complete file: an unexpected end of the body, or
// no answer at all when nothing had gone out yet (Parquet holds its first
// row group back).
func TestExportErrorMidStream(t *testing.T) {
	base := serve(t, &query.API{Store: &fakeStore{n: 20000, fail: errors.New("disk on fire")}})
	for _, format := range []string{"csv", "ndjson", "json", "arrow", "parquet"} {
		res, body, err := get(t, "GET", base+"/predictions/export?format="+format, "")
		if err == nil || res.StatusCode != 200 && res.StatusCode != 0 {
			t.Errorf("%s: got %d, %d bytes and transport error %v; want a failed transfer", format, res.StatusCode, len(body), err)
		}
		if res.StatusCode == 200 && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: got read error %v after %d bytes, want an unexpected EOF", format, err, len(body))
		}
	}
}

// TestExportSlots: with every slot taken, one more export answers 503;
// once the first is done, exports go through again.
func TestExportSlots(t *testing.T) {
	gate, waiting := make(chan struct{}), make(chan struct{})
	base := serve(t, &query.API{Store: &fakeStore{n: 3, gate: gate, waiting: waiting}, MaxExports: 1})
	first := make(chan error, 1)
	go func() {
		_, _, err := get(t, "GET", base+"/predictions/export", "")
		first <- err
	}()
	<-waiting
	if res, _, _ := get(t, "GET", base+"/predictions/export", ""); res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("got %d with the only slot taken, want 503 with Retry-After", res.StatusCode)
	}
	close(gate)
	if err := <-first; err != nil {
		t.Fatalf("first export: %v", err)
	}
	if res, _, _ := get(t, "GET", base+"/predictions/export", ""); res.StatusCode != 200 {
		t.Fatalf("got %d after the first export ended, want 200", res.StatusCode)
	}
}
