package backlog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/ingest/backlog"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// TestBacklogHoldsIngest: while the processors' group commits with more
// than Max records left, a prediction waits; one that waited MaxWait is
// answered 503 with Retry-After and appends nothing; once the backlog is
// down to Max, ingest goes on.
func TestBacklogHoldsIngest(t *testing.T) {
	l, err := embeddedlog.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	recs := make([]eventlog.Record, 30)
	for i := range recs {
		recs[i] = eventlog.Record{Kind: eventlog.KindMetric, Key: "o/m", Value: fmt.Appendf(nil, "%d", i)}
	}
	if err := l.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	group := l.Consumer("processors")
	commit := func() {
		t.Helper()
		if _, err := group.Poll(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := group.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	gate := &backlog.Gate{Progress: l, Group: "processors", Max: 5, Every: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go gate.Run(ctx)
	eventually(t, "a first reading", func() bool { _, ok := gate.Backlog(); return ok })
	commit() // the group commits: it makes progress
	if err := l.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the gate closing over 30 records left", gate.Closed)

	app := web.NewApp(web.Options{})
	web.Mount(app, (&ingest.API{Log: l, Models: activeModels{}, Backlog: gate}).Routes(), nil)
	end, _ := l.End(t.Context())
	req := httptest.NewRequest(http.MethodPost, "/predictions/log", strings.NewReader(
		`{"model_id":"m","input_data":{},"output_data":{}}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("held past MaxWait: got %d, Retry-After %q; want 503, Retry-After 1", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if after, _ := l.End(t.Context()); fmt.Sprint(after) != fmt.Sprint(end) {
		t.Fatalf("log end: got %v after a 503, want %v (nothing appended)", after, end)
	}

	commit()
	eventually(t, "the gate opening", func() bool { return !gate.Closed() })
	req = httptest.NewRequest(http.MethodPost, "/predictions/log", strings.NewReader(
		`{"model_id":"m","input_data":{},"output_data":{}}`))
	req.Header.Set("Content-Type", "application/json")
	if res, err = app.Test(req, -1); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("once the backlog is down: got %d, want 201", res.StatusCode)
	}
}

// activeModels finds every model, active.
type activeModels struct{}

func (activeModels) Model(_ context.Context, orgID, id string) (registry.Model, error) {
	return registry.Model{ID: id, OrgID: orgID, Status: registry.StatusActive}, nil
}
