package bias

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// memStore keeps audits in memory, for the Runner's tests.
type memStore struct {
	mu     sync.Mutex
	audits map[string]Audit
}

func (m *memStore) Model(context.Context, string, string) (registry.Model, error) {
	return registry.Model{}, nil
}

func (m *memStore) CreateBiasAudit(_ context.Context, a Audit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.audits == nil {
		m.audits = map[string]Audit{}
	}
	m.audits[a.ID] = a
	return nil
}

func (m *memStore) BiasAudit(_ context.Context, orgID, id string) (Audit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.audits[id]
	if !ok || a.OrgID != orgID {
		return a, store.ErrNotFound
	}
	return a, nil
}

func (m *memStore) BiasAudits(context.Context, string, Filter) ([]Audit, int64, error) {
	return nil, 0, nil
}

func (m *memStore) UpdateBiasAudit(ctx context.Context, a Audit) error {
	if _, err := m.BiasAudit(ctx, a.OrgID, a.ID); err != nil {
		return err
	}
	return m.CreateBiasAudit(ctx, a)
}

func (m *memStore) TouchBiasAudits(_ context.Context, ids []string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if a := m.audits[id]; !a.Status.Done() {
			a.UpdatedAt = at
			m.audits[id] = a
		}
	}
	return nil
}

func (m *memStore) FailStaleBiasAudits(_ context.Context, before, at time.Time, reason string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for id, a := range m.audits {
		if !a.Status.Done() && a.UpdatedAt.Before(before) {
			a.Status, a.Error, a.UpdatedAt, a.CompletedAt = StatusFailed, reason, at, &at
			m.audits[id] = a
			n++
		}
	}
	return n, nil
}

// findings records the audits handed to governance.
type findings struct {
	mu  sync.Mutex
	ids []string
}

func (f *findings) BiasAuditFinding(_ context.Context, a Audit) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids = append(f.ids, a.ID)
	return nil
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
	s, gov := &memStore{}, &findings{}
	r := &Runner{Store: s, Governance: gov}
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
	if !slices.Equal(gov.ids, []string{"biased"}) {
		t.Errorf("governance findings: got %v, want [biased] (critical only)", gov.ids)
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
