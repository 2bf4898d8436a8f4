package bias

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// stalled is an analytical store whose read of logged predictions blocks
// until its audit is stopped, saying when it starts and stops.
type stalled struct {
	analytics.Store
	started, stopped chan struct{}
}

func (s *stalled) EachPrediction(ctx context.Context, _ analytics.PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	return func(yield func(eventlog.Prediction, error) bool) {
		s.started <- struct{}{}
		<-ctx.Done()
		s.stopped <- struct{}{}
		yield(eventlog.Prediction{}, ctx.Err())
	}
}

// client calls an API whose caller belongs to the organization in X-Org.
type client struct {
	t   *testing.T
	app *fiber.App
}

func newClient(t *testing.T, api *API) client {
	app := web.NewApp(web.Options{})
	web.Mount(app, api.Routes(), func(web.Route) []fiber.Handler {
		return []fiber.Handler{func(c *fiber.Ctx) error {
			identity.SetPrincipal(c, &identity.Principal{OrgID: strings.Clone(c.Get("X-Org"))})
			return c.Next()
		}}
	})
	return client{t: t, app: app}
}

// do sends a request as org and fails the test unless it answers status;
// it returns the decoded body.
func (c client) do(method, path, org, body string, status int) map[string]any {
	c.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Org", org)
	res, err := c.app.Test(req, -1)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		c.t.Fatalf("%s %s: got %d %s, want %d", method, path, res.StatusCode, raw, status)
	}
	out := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.t.Fatalf("%s %s: got body %s: %v", method, path, raw, err)
		}
	}
	return out
}

// wantError fails the test unless the error envelope carries code.
func wantError(t *testing.T, body map[string]any, code string) map[string]any {
	t.Helper()
	e, _ := body["error"].(map[string]any)
	if e == nil || e["code"] != code {
		t.Fatalf("got body %v, want an error envelope with code %s", body, code)
	}
	return e
}

// wait fails the test unless ch receives within 10 s.
func wait(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing after 10 s", what)
	}
}

func TestCancelAndDelete(t *testing.T) {
	s, log := &memStore{}, &eventLog{}
	preds := &stalled{started: make(chan struct{}, 4), stopped: make(chan struct{}, 4)}
	r := &Runner{Store: s, Predictions: preds, Events: log, Workers: 1}
	startRunner(t, r)
	c := newClient(t, &API{Store: s, Runner: r})
	submit := func(body string) string {
		t.Helper()
		return c.do("POST", "/bias/audit", "o1", body, 202)["id"].(string)
	}
	status := func(id string, want Status) {
		t.Helper()
		if got := c.do("GET", "/bias/audits/"+id, "o1", "", 200)["status"]; got != string(want) {
			t.Fatalf("audit %s: got status %v, want %s", id, got, want)
		}
	}

	// A running audit is stopped, one queued behind it never runs.
	running := submit(unusable)
	wait(t, preds.started, "the logged-predictions audit starting")
	queued := submit(fair)
	for _, id := range []string{queued, running} {
		if got := c.do("POST", "/bias/audits/"+id+"/cancel", "o1", "", 200); got["status"] != "cancelled" || got["completed_at"] == nil || got["error"] != reasonCancelled {
			t.Errorf("cancel %s: got %v, want cancelled with completed_at and the reason", id, got)
		}
	}
	wait(t, preds.stopped, "the running audit stopping")
	c.do("POST", "/bias/audits/"+running+"/cancel", "o1", "", 200) // again: the same answer
	// The worker is free again and runs the next audit; the cancelled
	// ones stay cancelled.
	completed := submit(biased)
	waitStatus(t, s, completed)
	status(running, StatusCancelled)
	status(queued, StatusCancelled)

	// A finished audit cannot be cancelled; another organization's is
	// not found.
	e := wantError(t, c.do("POST", "/bias/audits/"+completed+"/cancel", "o1", "", 409), web.CodeConflict)
	if d, _ := e["details"].(map[string]any); d["status"] != "completed" {
		t.Errorf("got details %v, want status completed", e["details"])
	}
	for _, m := range []string{"POST", "DELETE"} {
		path := "/bias/audits/" + completed
		if m == "POST" {
			path += "/cancel"
		}
		wantError(t, c.do(m, path, "o2", "", 404), web.CodeNotFound)
	}
	status(completed, StatusCompleted)

	// Delete: a running audit is stopped and gone; so are finished ones.
	doomed := submit(unusable)
	wait(t, preds.started, "the second logged-predictions audit starting")
	c.do("DELETE", "/bias/audits/"+doomed, "o1", "", 204)
	wait(t, preds.stopped, "the deleted audit stopping")
	for _, id := range []string{doomed, running, completed} {
		if id != doomed {
			c.do("DELETE", "/bias/audits/"+id, "o1", "", 204)
		}
		wantError(t, c.do("GET", "/bias/audits/"+id, "o1", "", 404), web.CodeNotFound)
		wantError(t, c.do("DELETE", "/bias/audits/"+id, "o1", "", 404), web.CodeNotFound)
	}
}

// TestDeleteOwing: deleting an audit that owes its governance event
// appends the event first, or answers 503 and keeps the audit.
func TestDeleteOwing(t *testing.T) {
	s, log := &memStore{}, &eventLog{down: true}
	r := &Runner{Store: s, Events: log}
	c := newClient(t, &API{Store: s, Runner: r})
	id := c.do("POST", "/bias/audit", "o1", biased, 202)["id"].(string)
	startRunner(t, r)
	if a := waitStatus(t, s, id); !a.GovernancePending {
		t.Fatalf("audit completed with the log down: got governance pending false, want true")
	}
	wantError(t, c.do("DELETE", "/bias/audits/"+id, "o1", "", 503), web.CodeUnavailable)
	c.do("GET", "/bias/audits/"+id, "o1", "", 200)
	log.setDown(false)
	c.do("DELETE", "/bias/audits/"+id, "o1", "", 204)
	if ids, n := log.ids(); len(ids) != 1 || ids[0] != id || n != 1 {
		t.Errorf("got event ids %v in %d events, want [%s] once", ids, n, id)
	}
}

// TestCancelElsewhere: an audit cancelled through another replica (its
// cancellation stored, this Runner not told) is stopped by the heartbeat.
func TestCancelElsewhere(t *testing.T) {
	s := &memStore{}
	preds := &stalled{started: make(chan struct{}, 1), stopped: make(chan struct{}, 1)}
	r := &Runner{Store: s, Predictions: preds, StaleAfter: 40 * time.Millisecond}
	startRunner(t, r)
	accept(t, s, r, "elsewhere", unusable)
	wait(t, preds.started, "the audit starting")
	a, err := s.BiasAudit(t.Context(), "o1", "elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a.Status, a.Error, a.UpdatedAt, a.CompletedAt = StatusCancelled, reasonCancelled, now, &now
	if err := s.UpdateBiasAudit(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	wait(t, preds.stopped, "the audit cancelled elsewhere stopping")
	if got := waitStatus(t, s, "elsewhere"); got.Status != StatusCancelled {
		t.Errorf("got status %s, want cancelled", got.Status)
	}
}
