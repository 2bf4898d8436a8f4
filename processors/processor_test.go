package processors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// flaky is a Sink that fails while down, refuses for good every batch
// holding one of the poison event ids (like a store whose transaction
// fails as a whole), and records what it stored.
type flaky struct {
	mu     sync.Mutex
	down   bool
	poison map[string]bool
	ids    []string
	stored int
	writes int
}

func (f *flaky) Write(_ context.Context, b analytics.Batch) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if f.down {
		return errors.New("store down")
	}
	ids := batchIDs(b)
	for _, id := range ids {
		if f.poison[id] {
			return analytics.Permanent(fmt.Errorf("bad value in %s", id))
		}
	}
	f.ids = append(f.ids, ids...)
	f.stored += b.Len()
	return nil
}

func (f *flaky) set(down bool) { f.mu.Lock(); f.down = down; f.mu.Unlock() }

func (f *flaky) counts() (stored, writes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stored, f.writes
}

func msgs(n int) []eventlog.Message { return msgsFrom(0, n) }

// msgsFrom is n predictions of model m at offsets first, first+1, ...,
// each with an id of its own.
func msgsFrom(first, n int) []eventlog.Message {
	var out []eventlog.Message
	for i := first; i < first+n; i++ {
		v, _ := json.Marshal(eventlog.Prediction{ModelID: "m", PredictionID: string(rune('a' + i)), InputData: json.RawMessage(`{"x":1}`)})
		out = append(out, eventlog.Message{Kind: eventlog.KindPrediction, Value: v, Offset: int64(i)})
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

// batches is a fixed source of batches that counts what it handed out and
// what is committed.
type batches interface {
	eventlog.Source
	Polled() int
	Committed() int
}

// eachSource runs f over a source that commits all it handed out
// (eventlog.Batches: the processor writes a batch at a time, as on Kafka)
// and one that commits a prefix (the processor reads the next batch while
// it writes, as on the embedded log).
func eachSource(t *testing.T, f func(t *testing.T, src func(...[]eventlog.Message) batches)) {
	t.Run("commit", func(t *testing.T) {
		f(t, func(bs ...[]eventlog.Message) batches { return eventlog.NewBatches(bs...) })
	})
	t.Run("commit through", func(t *testing.T) {
		f(t, func(bs ...[]eventlog.Message) batches { return eventlog.NewPrefixBatches(bs...) })
	})
}

func TestProcessorCommitsAfterWrite(t *testing.T) {
	eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
		src := batches(msgs(3), msgs(2))
		sink := &flaky{down: true}
		p := &Processor{Source: src, Sink: sink, Log: quiet(), MaxBackoff: 10 * time.Millisecond}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()

		eventually(t, "retries while the store is down", func() bool { _, w := sink.counts(); return w >= 3 })
		if c := src.Committed(); c != 0 {
			t.Fatalf("got %d batches committed while the store is down, want 0", c)
		}
		sink.set(false)
		eventually(t, "both batches stored and committed", func() bool { s, _ := sink.counts(); return s == 5 && src.Committed() == 2 })
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: got %v, want nil", err)
		}
	})
}

// TestProcessorReadsAhead: over a source that commits a prefix, the next
// batch is read while the one before is retried, and a shutdown that
// leaves a batch unwritten commits only the batches written.
func TestProcessorReadsAhead(t *testing.T) {
	src := eventlog.NewPrefixBatches(msgs(1), msgs(2), msgs(3), msgs(4))
	sink := &flaky{}
	p := &Processor{Source: src, Sink: sink, Log: quiet(), MaxBackoff: 10 * time.Millisecond, Grace: 50 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	sink.set(true)
	go func() { done <- p.Run(ctx) }()
	eventually(t, "the first batch retried", func() bool { _, w := sink.counts(); return w >= 2 })
	eventually(t, "the second batch read ahead", func() bool { return src.Polled() == 2 })
	if c := src.Committed(); c != 0 {
		t.Fatalf("got %d batches committed while the first is unwritten, want 0", c)
	}
	sink.set(false)
	eventually(t, "every batch stored", func() bool { s, _ := sink.counts(); return s == 10 && src.Committed() == 4 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}

	// A shutdown while the second batch is retried, the third read ahead.
	src = eventlog.NewPrefixBatches(msgs(1), msgs(2), msgs(3))
	sink = &flaky{poison: map[string]bool{}}
	p = &Processor{Source: src, Sink: &downAfter{flaky: sink, n: 1}, Log: quiet(), MaxBackoff: 10 * time.Millisecond, Grace: 50 * time.Millisecond}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { done <- p.Run(ctx) }()
	eventually(t, "the second batch retried, the third read", func() bool { _, w := sink.counts(); return w >= 3 && src.Polled() == 3 })
	cancel()
	if err := <-done; err == nil {
		t.Fatalf("Run: got nil, want an error for the batch left unwritten")
	}
	if c := src.Committed(); c != 1 {
		t.Fatalf("got %d batches committed, want 1: the batch in flight and the one read ahead must be read again", c)
	}
}

// TestProcessorProfilesBehindStore: over a source that commits a prefix,
// the next batch is stored while the profiles of the one before are
// retried, and nothing is committed before its profiles are saved.
func TestProcessorProfilesBehindStore(t *testing.T) {
	src := eventlog.NewPrefixBatches(msgsFrom(0, 1), msgsFrom(1, 2), msgsFrom(3, 3))
	sink := &flaky{}
	profiles := &downProfiles{down: true}
	p := &Processor{Source: src, Sink: sink, Profiles: profiles, Log: quiet(), MaxBackoff: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	eventually(t, "the second batch stored while the first is profiled", func() bool { s, _ := sink.counts(); return s == 3 })
	if c := src.Committed(); c != 0 {
		t.Fatalf("got %d batches committed before their profiles are saved, want 0", c)
	}
	profiles.set(false)
	eventually(t, "every batch committed", func() bool { return src.Committed() == 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	snaps, err := profiles.LoadProfiles(context.Background(), []analytics.ProfileKey{key(eventlog.Prediction{ModelID: "m"}, analytics.SideInput)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if s.Profile.Rows != 6 {
			t.Errorf("got %d predictions profiled, want 6", s.Profile.Rows)
		}
	}
	if len(snaps) != 1 {
		t.Errorf("got %d input profiles, want 1", len(snaps))
	}
}

// downProfiles is a ProfileStore in memory that fails while down.
type downProfiles struct {
	memProfiles
	dmu  sync.Mutex
	down bool
}

func (d *downProfiles) set(down bool) { d.dmu.Lock(); d.down = down; d.dmu.Unlock() }

func (d *downProfiles) SaveProfiles(ctx context.Context, snaps []*analytics.ProfileSnapshot) error {
	d.dmu.Lock()
	down := d.down
	d.dmu.Unlock()
	if down {
		return errors.New("profile store down")
	}
	return d.memProfiles.SaveProfiles(ctx, snaps)
}

// downAfter is a flaky Sink that goes down after n writes.
type downAfter struct {
	*flaky
	n int
}

func (d *downAfter) Write(ctx context.Context, b analytics.Batch) error {
	if _, w := d.counts(); w >= d.n {
		d.set(true)
	}
	return d.flaky.Write(ctx, b)
}

func TestProcessorFinishesBatchOnShutdown(t *testing.T) {
	eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
		src := batches(msgs(4), msgs(1))
		sink := &flaky{down: true}
		p := &Processor{Source: src, Sink: sink, Log: quiet(), MaxBackoff: 10 * time.Millisecond, Grace: 5 * time.Second}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		eventually(t, "first failed write", func() bool { _, w := sink.counts(); return w >= 1 })
		cancel() // shutdown while the batch is in flight
		time.Sleep(50 * time.Millisecond)
		sink.set(false)
		if err := <-done; err != nil {
			t.Fatalf("Run: got %v, want nil", err)
		}
		if s, _ := sink.counts(); s != 4 || src.Committed() != 1 {
			t.Fatalf("got %d stored, %d commits, want the batch in flight finished: 4, 1", s, src.Committed())
		}
	})
}

func TestProcessorGivesUpAfterGrace(t *testing.T) {
	eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
		src := batches(msgs(2))
		sink := &flaky{down: true}
		p := &Processor{Source: src, Sink: sink, Log: quiet(), MaxBackoff: 10 * time.Millisecond, Grace: 100 * time.Millisecond}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		eventually(t, "first failed write", func() bool { _, w := sink.counts(); return w >= 1 })
		cancel()
		if err := <-done; err == nil {
			t.Fatalf("Run: got nil, want an error for the batch left unwritten")
		}
		if c := src.Committed(); c != 0 {
			t.Fatalf("got %d commits, want 0: the unwritten batch must be read again", c)
		}
	})
}

func TestProcessorSkipsUndecodable(t *testing.T) {
	eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
		bad := []eventlog.Message{{Kind: eventlog.KindPrediction, Value: []byte("{not json")}, {Kind: "other", Value: []byte("{}")}}
		src := batches(append(bad, msgs(2)...))
		sink := &flaky{}
		p := &Processor{Source: src, Sink: sink, Log: quiet()}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		eventually(t, "the good events stored", func() bool { s, _ := sink.counts(); return s == 2 && src.Committed() == 1 })
		cancel()
		<-done
	})
}

func TestProcessorSkipsGovernanceEvents(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	p := &Processor{Log: quiet(), Metrics: m}
	b := p.decode([]eventlog.Message{{Kind: eventlog.KindGovernance, Value: []byte(`{"event_id":"e"}`)}, {Kind: "other", Value: []byte("{}")}})
	if b.Len() != 0 {
		t.Fatalf("got %d events, want 0", b.Len())
	}
	for kind, want := range map[string]float64{eventlog.KindGovernance: 0, "other": 1} {
		var got dto.Metric
		if err := m.dropped.WithLabelValues(kind, DropUndecodable).Write(&got); err != nil {
			t.Fatal(err)
		}
		if got := got.GetCounter().GetValue(); got != want {
			t.Errorf("%s: got %v undecodable, want %v", kind, got, want)
		}
	}
}
