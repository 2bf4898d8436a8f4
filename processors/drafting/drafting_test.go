package drafting_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/eventlog/kafka/kafkatest"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/processors/drafting"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
	"github.com/vigilhq/vigil/store"
)

// engine is an event log with its consumers, beside a transactional store.
type engine struct {
	log      eventlog.Log
	consumer func(group string) eventlog.Source
	store    *sqlstore.DB
}

// engines are the embedded default (embedded log, SQLite) and the scale-out
// pair (Kafka, PostgreSQL).
var engines = []struct {
	name string
	open func(t *testing.T) engine
}{
	{"embedded+sqlite", func(t *testing.T) engine {
		dir := t.TempDir()
		l, err := embeddedlog.Open(t.Context(), dir)
		if err != nil {
			t.Fatalf("embeddedlog.Open: %v", err)
		}
		t.Cleanup(func() { l.Close() })
		s, err := sqlitestore.Open(t.Context(), dir)
		if err != nil {
			t.Fatalf("sqlitestore.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return engine{log: l, consumer: func(g string) eventlog.Source { return l.Consumer(g) }, store: s}
	}},
	{"kafka+postgres", func(t *testing.T) engine {
		p, consumer := kafkatest.Log(t, strings.Split(testenv.URL(t, testenv.Kafka), ","),
			kafka.Options{Kinds: []string{eventlog.KindGovernance, eventlog.KindPrediction}})
		s, err := postgres.Open(t.Context(), testenv.PostgresSchema(t))
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return engine{log: p, store: s, consumer: func(g string) eventlog.Source { return consumer(g) }}
	}},
}

// counting is a Source that counts the messages it has committed, and
// can act as a process killed between its writes and its commit.
type counting struct {
	eventlog.Source
	mu        sync.Mutex
	polled    int
	committed int
	// kill, when set, is called instead of the first Commit after which
	// wrote holds (every Commit when wrote is nil): the process dies with
	// the batch written and its offsets not committed.
	kill  func()
	wrote func() bool
}

func (c *counting) Poll(ctx context.Context) ([]eventlog.Message, error) {
	msgs, err := c.Source.Poll(ctx)
	c.mu.Lock()
	c.polled += len(msgs)
	c.mu.Unlock()
	return msgs, err
}

func (c *counting) Commit(ctx context.Context) error {
	c.mu.Lock()
	kill := c.kill
	if kill != nil && c.wrote != nil && !c.wrote() {
		kill = nil // a batch that drafted nothing (one partition's unreadable record, say)
	}
	if kill != nil {
		c.kill = nil
	}
	c.mu.Unlock()
	if kill != nil {
		kill()
		return errors.New("killed before the commit")
	}
	if err := c.Source.Commit(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.committed = c.polled
	c.mu.Unlock()
	return nil
}

func (c *counting) done() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.committed
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// run runs a drafter of st on src until it has committed n messages (or,
// with kill set, until kill stops it) and waits for it to stop. It may
// run outside the test's goroutine, so it returns its failure.
func run(t *testing.T, st drafting.Store, src *counting, n int) error {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if src.kill != nil {
		src.kill = cancel
	}
	d := &drafting.Drafter{Source: src, Store: st, Log: quiet, MaxBackoff: 10 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for ctx.Err() == nil && src.done() < n {
		if time.Now().After(deadline) {
			cancel()
			<-done
			return fmt.Errorf("committed %d of %d messages within 60 s", src.done(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		return fmt.Errorf("Run: got %w, want nil", err)
	}
	return src.Close()
}

// fixture is an organization with two models and the governance events
// their reports and audits raised: some appended twice, beside a
// prediction and an unreadable record.
type fixture struct {
	org             string
	models          [2]registry.Model
	sources         []string // the distinct qualifying sources
	records         []eventlog.Record
	notQualifying   string
	deletedModelSrc string
}

func newFixture(t *testing.T, e engine) fixture {
	t.Helper()
	ctx := t.Context()
	now := time.Now().UTC()
	f := fixture{org: uuid.NewString()}
	admin := identity.User{ID: uuid.NewString(), OrgID: f.org, Username: "admin-" + f.org[:8], Email: "a@example.com",
		PasswordHash: "x", Role: identity.RoleAdmin, Active: true, CreatedAt: now, UpdatedAt: now}
	roles := identity.BuiltInRoles()
	for i := range roles {
		roles[i].ID, roles[i].OrgID, roles[i].CreatedAt = uuid.NewString(), f.org, now
	}
	if err := e.store.CreateOrganization(ctx, identity.Organization{ID: f.org, Name: "o", CreatedAt: now}, roles, admin); err != nil {
		t.Fatalf("CreateOrganization: %v", err)
	}
	for i, name := range []string{"credit", "fraud"} {
		f.models[i] = registry.Model{ID: uuid.NewString(), OrgID: f.org, Name: name, Version: "1", ModelType: "classification",
			Status: registry.StatusActive, CreatedAt: now, UpdatedAt: now}
		if err := e.store.CreateModel(ctx, f.models[i]); err != nil {
			t.Fatalf("CreateModel: %v", err)
		}
	}
	gone := registry.Model{ID: uuid.NewString(), OrgID: f.org, Name: "gone", Version: "1", ModelType: "classification",
		Status: registry.StatusActive, CreatedAt: now, UpdatedAt: now}
	add := func(ev governance.Event, times int) {
		r, err := governance.EventRecord(ev)
		if err != nil {
			t.Fatal(err)
		}
		for range times {
			f.records = append(f.records, r)
		}
	}
	for i := range 20 {
		m := f.models[i%2]
		ev := governance.Event{EventID: uuid.NewString(), OrgID: f.org, ModelID: m.ID, SourceType: governance.SourceDriftReport,
			SourceID: uuid.NewString(), Severity: "high", Summary: fmt.Sprint("feature ", i, " drifted"), Timestamp: now}
		if i%3 == 0 {
			ev.SourceType, ev.Severity = governance.SourceBiasAudit, "critical"
		}
		f.sources = append(f.sources, ev.SourceID)
		add(ev, 1+i%3) // a third of them twice, a third three times
	}
	f.notQualifying = uuid.NewString()
	add(governance.Event{EventID: uuid.NewString(), OrgID: f.org, ModelID: f.models[0].ID, SourceType: governance.SourceDriftReport,
		SourceID: f.notQualifying, Severity: "medium"}, 1)
	f.deletedModelSrc = uuid.NewString()
	add(governance.Event{EventID: uuid.NewString(), OrgID: f.org, ModelID: gone.ID, SourceType: governance.SourceDriftReport,
		SourceID: f.deletedModelSrc, Severity: "high"}, 1)
	f.records = append(f.records, eventlog.Record{Kind: eventlog.KindGovernance, Key: f.org + "/x", Value: []byte(`{"event_id": 7`)},
		eventlog.Record{Kind: eventlog.KindPrediction, Key: f.org + "/" + f.models[0].ID, Value: []byte(`{"event_id":"p1"}`)})
	if err := e.log.Append(ctx, f.records); err != nil {
		t.Fatalf("Append: %v", err)
	}
	return f
}

// check fails the test unless the register holds one drafted entry per
// model and source type (two models, drift reports and bias audits),
// each with its create event, and every qualifying source is on exactly
// one trail once: as an entry's create or as a repeat trigger.
func (f fixture) check(t *testing.T, e engine, what string) {
	t.Helper()
	es, total, err := e.store.RiskEntries(t.Context(), f.org, risk.Filter{})
	if err != nil {
		t.Fatalf("%s: RiskEntries: %v", what, err)
	}
	if total != 4 {
		t.Fatalf("%s: got %d entries, want 4, one per model and source type", what, total)
	}
	seen := map[string]int{}
	for _, x := range es {
		if x.SourceID == f.notQualifying || x.SourceID == f.deletedModelSrc {
			t.Fatalf("%s: got an unwanted entry for source %s", what, x.SourceID)
		}
		seen[x.SourceID]++
		if x.Status != risk.StatusIdentified || x.CreatedBy != "" || len(x.ModelIDs) != 1 {
			t.Errorf("%s: got %+v, want an identified drafted entry naming its model", what, x)
		}
		evs, err := e.store.RiskHistory(t.Context(), f.org, x.ID)
		if err != nil || len(evs) == 0 || evs[0].Action != risk.ActionCreate || evs[0].Username != risk.SystemUser {
			t.Fatalf("%s: history of %s: got %+v %v, want a create by %s first", what, x.ID, evs, err, risk.SystemUser)
		}
		for _, ev := range evs[1:] {
			if ev.Action != risk.ActionRepeat || ev.Details["source_type"] != x.SourceType {
				t.Errorf("%s: got event %+v on %s, want only repeat triggers of its source type", what, ev, x.ID)
			}
			src, _ := ev.Details["source_id"].(string)
			seen[src]++
		}
	}
	for _, src := range f.sources {
		if seen[src] != 1 {
			t.Errorf("%s: got source %s on the trails %d times, want once", what, src, seen[src])
		}
	}
	if len(seen) != len(f.sources) {
		t.Errorf("%s: got %d sources on the trails, want %d", what, len(seen), len(f.sources))
	}
}

// TestReplay: the drafter takes each source in once however often its
// event is on the log; a restart between the writes and the commit, a
// replay of the whole log (a new group) and a second replica running at
// the same time draft nothing more.
func TestReplay(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			f := newFixture(t, e)
			n := len(f.records)

			// Killed after writing its first batch that drafts anything,
			// before committing it. (A Kafka poll may hand over one
			// partition's records first: the unreadable one alone, say.)
			drafted := func() bool {
				_, total, err := e.store.RiskEntries(t.Context(), f.org, risk.Filter{})
				return err == nil && total > 0
			}
			first := &counting{Source: e.consumer(drafting.Group), kill: func() {}, wrote: drafted}
			if err := run(t, e.store, first, n); err != nil {
				t.Fatal(err)
			}
			if first.done() >= n {
				t.Fatalf("got %d of %d messages committed by the killed drafter, want the batch that drafted left uncommitted", first.done(), n)
			}
			if _, total, err := e.store.RiskEntries(t.Context(), f.org, risk.Filter{}); err != nil || total == 0 {
				t.Fatalf("got %d entries (%v) from the killed drafter's batch, want some written before the kill", total, err)
			}
			// The restart reads the batch again.
			again := &counting{Source: e.consumer(drafting.Group)}
			if err := run(t, e.store, again, n); err != nil {
				t.Fatal(err)
			}
			f.check(t, e, "after the restart")

			// Two replicas replay the whole log at once.
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = run(t, e.store, &counting{Source: e.consumer(fmt.Sprint("replay-", i))}, n)
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			f.check(t, e, "after two replicas replayed the log")
		})
	}
}

// refusing is a store whose batch writes of more than one entry fail, as
// when a batch's model is deleted between the drafter's read and its
// transaction; an event drafted alone is stored.
type refusing struct {
	*sqlstore.DB
	mu    sync.Mutex
	calls int
}

func (r *refusing) CreateRiskEntries(ctx context.Context, ds []risk.Drafted) ([]bool, error) {
	if len(ds) == 1 {
		return r.DB.CreateRiskEntries(ctx, ds)
	}
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	return make([]bool, len(ds)), fmt.Errorf("refused: %w", store.ErrNotFound)
}

// TestBatchFallback: when a batch's transaction fails, each of its events
// is drafted alone, and still once.
func TestBatchFallback(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			f := newFixture(t, e)
			st := &refusing{DB: e.store}
			if err := run(t, st, &counting{Source: e.consumer(drafting.Group)}, len(f.records)); err != nil {
				t.Fatal(err)
			}
			if st.calls == 0 {
				t.Fatal("got no batch write, want the batch tried first")
			}
			f.check(t, e, "after the fallback")
		})
	}
}
