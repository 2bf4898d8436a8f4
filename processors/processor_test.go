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

func msgs(n int) []eventlog.Message {
	var out []eventlog.Message
	for i := range n {
		v, _ := json.Marshal(eventlog.Prediction{ModelID: "m", PredictionID: string(rune('a' + i))})
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

func TestProcessorCommitsAfterWrite(t *testing.T) {
	src := eventlog.NewBatches(msgs(3), msgs(2))
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
}

func TestProcessorFinishesBatchOnShutdown(t *testing.T) {
	src := eventlog.NewBatches(msgs(4))
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
}

func TestProcessorGivesUpAfterGrace(t *testing.T) {
	src := eventlog.NewBatches(msgs(2))
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
}

func TestProcessorSkipsUndecodable(t *testing.T) {
	bad := []eventlog.Message{{Kind: eventlog.KindPrediction, Value: []byte("{not json")}, {Kind: "other", Value: []byte("{}")}}
	src := eventlog.NewBatches(append(bad, msgs(2)...))
	sink := &flaky{}
	p := &Processor{Source: src, Sink: sink, Log: quiet()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	eventually(t, "the good events stored", func() bool { s, _ := sink.counts(); return s == 2 && src.Committed() == 1 })
	cancel()
	<-done
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
