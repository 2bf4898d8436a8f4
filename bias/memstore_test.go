package bias

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// memStore keeps audits in memory, for the Runner's tests. Like the real
// stores, it writes no finished audit and deletes none that owes its
// governance event.
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

// write changes the organization's audit id when ok allows it.
func (m *memStore) write(orgID, id string, ok func(Audit) bool, change func(Audit)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, found := m.audits[id]
	switch {
	case !found || old.OrgID != orgID:
		return store.ErrNotFound
	case !ok(old):
		return store.ErrConflict
	}
	change(old)
	return nil
}

func (m *memStore) UpdateBiasAudit(_ context.Context, a Audit) error {
	return m.write(a.OrgID, a.ID, func(old Audit) bool { return !old.Status.Done() }, func(Audit) { m.audits[a.ID] = a })
}

func (m *memStore) DeleteBiasAudit(_ context.Context, orgID, id string, _ time.Time) error {
	return m.write(orgID, id, func(old Audit) bool { return !old.GovernancePending }, func(Audit) { delete(m.audits, id) })
}

func (m *memStore) BiasGovernancePending(_ context.Context, limit int) ([]Audit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Audit
	for _, a := range m.audits {
		if a.GovernancePending {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b Audit) int { return strings.Compare(a.ID, b.ID) })
	return out[:min(limit, len(out))], nil
}

func (m *memStore) BiasGovernanceSent(_ context.Context, orgID, id string) error {
	return m.write(orgID, id, func(Audit) bool { return true }, func(a Audit) {
		a.GovernancePending = false
		m.audits[id] = a
	})
}

func (m *memStore) TouchBiasAudits(_ context.Context, ids []string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if a, ok := m.audits[id]; ok && !a.Status.Done() {
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

// eventLog records the governance events appended; while down it refuses
// every append.
type eventLog struct {
	mu     sync.Mutex
	down   bool
	events []governance.Event
}

func (l *eventLog) Append(_ context.Context, recs []eventlog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return errors.New("event log unreachable")
	}
	for _, r := range recs {
		var e governance.Event
		if err := json.Unmarshal(r.Value, &e); err != nil {
			return err
		}
		l.events = append(l.events, e)
	}
	return nil
}

// setDown takes the log down or brings it back.
func (l *eventLog) setDown(down bool) {
	l.mu.Lock()
	l.down = down
	l.mu.Unlock()
}

// ids lists the distinct event ids appended, in order, and how many
// events were appended in all.
func (l *eventLog) ids() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for _, e := range l.events {
		if !slices.Contains(ids, e.EventID) {
			ids = append(ids, e.EventID)
		}
	}
	return ids, len(l.events)
}
