package bias

import (
	"context"
	"slices"
	"testing"
	"time"
)

// startRunner runs r until the test ends, and then fails the test unless
// Run returned nil.
func startRunner(t *testing.T, r *Runner) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: got %v, want nil", err)
		}
	})
}

// accept stores a pending audit of body and submits it to r.
func accept(t *testing.T, s *memStore, r *Runner, id, body string) bool {
	t.Helper()
	p := plan(t, body)
	a := Audit{ID: id, OrgID: "o1", ModelID: p.ModelID, Status: StatusPending, Request: p.Summary, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := s.CreateBiasAudit(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	return r.Submit(a, p)
}

// waitStatus polls the store until the audit has finished.
func waitStatus(t *testing.T, s *memStore, id string) Audit {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, err := s.BiasAudit(t.Context(), "o1", id)
		if err == nil && a.Status.Done() {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit %s: got status %s after 10 s, want it finished", id, a.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const (
	// biased: group a is always selected, b never: disparate impact 0, critical.
	biased = `{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 1, 0, 0], "group_data": {"g": ["a", "a", "b", "b"]}}`
	fair   = `{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0, 1, 0], "group_data": {"g": ["a", "a", "b", "b"]}}`
	// unusable is the logged-predictions form, which a Runner without
	// Predictions cannot read.
	unusable = `{"model_id": "m", "protected_attributes": ["g"]}`
)

func TestRunnerRuns(t *testing.T) {
	s, log := &memStore{}, &eventLog{}
	r := &Runner{Store: s, Events: log}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for _, tc := range []struct{ id, body string }{{"biased", biased}, {"fair", fair}, {"no-store", unusable}} {
		if !accept(t, s, r, tc.id, tc.body) {
			t.Fatalf("Submit %s: got false, want true", tc.id)
		}
	}
	if a := waitStatus(t, s, "biased"); a.Status != StatusCompleted || a.Result.Severity != "critical" || a.CompletedAt == nil {
		t.Errorf("biased: got %s severity %v, want completed and critical", a.Status, a.Result)
	}
	if a := waitStatus(t, s, "fair"); a.Status != StatusCompleted || a.Result.BiasDetected {
		t.Errorf("fair: got %s %+v, want completed without bias", a.Status, a.Result)
	}
	if a := waitStatus(t, s, "no-store"); a.Status != StatusFailed || a.Error == "" || a.Result != nil {
		t.Errorf("logged form without an analytical store: got %s %q, want failed with a reason", a.Status, a.Error)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: got %v, want nil", err)
	}
	if ids, _ := log.ids(); !slices.Equal(ids, []string{"biased"}) {
		t.Errorf("governance events: got ids %v, want [biased] (critical only, the audit's id)", ids)
	}
}

func TestRunnerQueueAndShutdown(t *testing.T) {
	s := &memStore{}
	r := &Runner{Store: s, Queue: 2}
	// Not running yet: two audits wait, the third finds the queue full.
	for i, want := range []bool{true, true, false} {
		if got := accept(t, s, r, string(rune('a'+i)), fair); got != want {
			t.Errorf("Submit %d with queue 2: got %v, want %v", i, got, want)
		}
	}
	// Run stopped before it starts: the queued audits are failed at once.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	for _, id := range []string{"a", "b"} {
		if a, _ := s.BiasAudit(t.Context(), "o1", id); a.Status != StatusFailed && a.Status != StatusCompleted {
			t.Errorf("queued audit %s after shutdown: got %s, want failed (or completed)", id, a.Status)
		} else if a.Status == StatusFailed && a.Error != reasonInterrupted {
			t.Errorf("queued audit %s after shutdown: got error %q, want %q", id, a.Error, reasonInterrupted)
		}
	}
}

func TestRunnerFailsStale(t *testing.T) {
	s := &memStore{}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	old := Audit{ID: "old", OrgID: "o1", Status: StatusRunning, CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-3 * time.Minute)}
	recent := Audit{ID: "recent", OrgID: "o1", Status: StatusRunning, CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Minute)}
	for _, a := range []Audit{old, recent} {
		if err := s.CreateBiasAudit(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{Store: s, Clock: func() time.Time { return now }}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if a, _ := s.BiasAudit(t.Context(), "o1", "old"); a.Status != StatusFailed || a.Error != reasonStale {
		t.Errorf("audit without heartbeat for 3 min: got %s %q, want failed %q", a.Status, a.Error, reasonStale)
	}
	if a, _ := s.BiasAudit(t.Context(), "o1", "recent"); a.Status != StatusRunning {
		t.Errorf("audit with a heartbeat 1 min ago: got %s, want running (another replica's)", a.Status)
	}
}

// TestRunnerGovernanceOutbox: an audit completed while the event log is
// down is still completed, owing its event, which a later refresh appends
// once the log is back: one event, whose id is the audit's.
func TestRunnerGovernanceOutbox(t *testing.T) {
	s, log := &memStore{}, &eventLog{down: true}
	r := &Runner{Store: s, Events: log, StaleAfter: 40 * time.Millisecond}
	startRunner(t, r)
	accept(t, s, r, "biased", biased)
	accept(t, s, r, "fair", fair)
	if a := waitStatus(t, s, "biased"); a.Status != StatusCompleted || !a.GovernancePending {
		t.Fatalf("biased audit with the log down: got %s, governance pending %v, want completed and pending", a.Status, a.GovernancePending)
	}
	if a := waitStatus(t, s, "fair"); a.GovernancePending {
		t.Errorf("fair audit: got governance pending, want nothing owed")
	}
	time.Sleep(50 * time.Millisecond) // refreshes while the log is down
	if ids, n := log.ids(); n != 0 {
		t.Fatalf("log down: got events %v, want none", ids)
	}
	log.setDown(false)
	deadline := time.Now().Add(10 * time.Second)
	for a, _ := s.BiasAudit(t.Context(), "o1", "biased"); a.GovernancePending; a, _ = s.BiasAudit(t.Context(), "o1", "biased") {
		if time.Now().After(deadline) {
			t.Fatal("governance event still owed 10 s after the log came back")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // more refreshes: nothing owed, nothing appended
	if ids, n := log.ids(); !slices.Equal(ids, []string{"biased"}) || n != 1 {
		t.Errorf("got event ids %v in %d events, want [biased] once", ids, n)
	}
}
