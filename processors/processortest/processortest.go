// Package processortest runs the processor over an analytical store: what
// the consume loop does with a batch the store partly refuses, or refuses
// for a while. Each engine's tests run it beside the store's own contract
// (analytics/analyticstest), so the processor is proven on every engine.
//
// It imports the processors, the analytics and eventlog contracts and the
// analytics contract suite; it must not import an engine (each engine's
// tests call Run).
package processortest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/analyticstest"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/processors"
)

// Run runs the cases on stores made by open, a fresh one per case.
func Run(t *testing.T, open func(t *testing.T) analyticstest.Store) {
	for _, c := range []struct {
		name string
		f    func(t *testing.T, s analyticstest.Store)
	}{
		{"PoisonSetAside", testPoisonSetAside},
		{"RetriedInOnePoll", testRetriedInOnePoll},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, open(t)) })
	}
}

// testPoisonSetAside runs the processor on the store with a batch holding
// two events the store refuses: the others are stored and counted once,
// the two are dead letters of their organization, kept once however often
// they are set aside, and the batch is committed.
func testPoisonSetAside(t *testing.T, s analyticstest.Store) {
	var ps []eventlog.Prediction
	for i := range 8 {
		ps = append(ps, analyticstest.Prediction("o1", "m1", i, 1))
	}
	ps[2].Timestamp = time.Time{} // as a producer that forgot the time would log it
	ps[5].Timestamp = analytics.Newest.Add(time.Minute)
	var msgs []eventlog.Message
	for i, p := range ps {
		v, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, eventlog.Message{Kind: eventlog.KindPrediction, Value: v, Offset: int64(i)})
	}
	src := eventlog.NewBatches(msgs)
	p := &processors.Processor{Source: src, Sink: s, DeadLetters: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxBackoff: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); src.Committed() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("batch not committed within 30s")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if st := analyticstest.Stats(t, s, "o1", "m1"); st.TotalPredictions != 6 {
		t.Fatalf("got %d predictions counted, want 6", st.TotalPredictions)
	}
	// A replay sets them aside again.
	again, err := s.DeadLetters(context.Background(), "o1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAside(context.Background(), again); err != nil {
		t.Fatal(err)
	}
	got, err := s.DeadLetters(context.Background(), "o1", 10)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, d := range got {
		ids[d.EventID] = true
		if d.Kind != eventlog.KindPrediction || d.ModelID != "m1" || d.Reason == "" || d.FailedAt.IsZero() || len(d.Event) == 0 {
			t.Errorf("got dead letter %+v, want kind, model, reason, time and event", d)
		}
	}
	if len(got) != 2 || !ids["p0002"] || !ids["p0005"] {
		t.Fatalf("got %d dead letters %v, want p0002 and p0005 once each", len(got), ids)
	}
	if other, err := s.DeadLetters(context.Background(), "o2", 10); err != nil || len(other) != 0 {
		t.Fatalf("got %d dead letters for another organization (%v), want none", len(other), err)
	}
	// The per-minute counts (the alerts' dead_letters metric) saw each once.
	around := analytics.Range{From: got[0].FailedAt.Add(-time.Hour), To: got[0].FailedAt.Add(time.Hour)}
	for _, c := range []struct {
		org, model string
		want       int64
	}{{"o1", "m1", 2}, {"o1", "m2", 0}, {"o2", "m1", 0}} {
		if n, err := s.DeadLetterCount(context.Background(), c.org, c.model, around); err != nil || n != c.want {
			t.Fatalf("dead letter count of %s/%s: got %d, %v, want %d", c.org, c.model, n, err, c.want)
		}
	}
	if n, err := s.DeadLetterCount(context.Background(), "o1", "m1", analytics.Range{From: around.To, To: around.To.Add(time.Hour)}); err != nil || n != 0 {
		t.Fatalf("dead letter count of a later window: got %d, %v, want 0", n, err)
	}
}

// testRetriedInOnePoll runs the processor over one poll holding 300
// predictions and a client's retry of 100 of them (new log records, same
// prediction_ids), then the whole poll again (a replay): each prediction
// is stored and counted once.
func testRetriedInOnePoll(t *testing.T, s analyticstest.Store) {
	var msgs []eventlog.Message
	add := func(i int) {
		v, err := json.Marshal(analyticstest.Prediction("o1", "m1", i, float64(i%10)))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, eventlog.Message{Kind: eventlog.KindPrediction, Value: v, Partition: 1, Offset: int64(len(msgs))})
	}
	for i := range 300 {
		add(i)
	}
	for i := 100; i < 200; i++ {
		add(i)
	}
	src := eventlog.NewBatches(msgs, msgs)
	p := &processors.Processor{Source: src, Sink: s, DeadLetters: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxBackoff: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); src.Committed() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("polls not committed within 30s")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if st := analyticstest.Stats(t, s, "o1", "m1"); st.TotalPredictions != 300 {
		t.Fatalf("got %d predictions counted, want 300", st.TotalPredictions)
	}
}
