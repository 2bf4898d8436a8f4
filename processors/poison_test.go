package processors

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

func batchIDs(b analytics.Batch) []string {
	var ids []string
	for _, p := range b.Predictions {
		ids = append(ids, p.PredictionID)
	}
	for _, m := range b.Metrics {
		ids = append(ids, m.ID)
	}
	return ids
}

// letters is an in-memory DeadLetters.
type letters struct {
	mu  sync.Mutex
	all []analytics.DeadLetter
}

func (l *letters) SetAside(_ context.Context, dls []analytics.DeadLetter) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, dls...)
	return nil
}

func (l *letters) ids() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for _, d := range l.all {
		ids = append(ids, d.EventID)
	}
	return ids
}

// mixed is n predictions p0.. and n metrics m0.. of organization o.
func mixed(n int) []eventlog.Message {
	var out []eventlog.Message
	for i := range n {
		v, _ := json.Marshal(eventlog.Prediction{OrgID: "o", ModelID: "m", PredictionID: fmt.Sprintf("p%d", i)})
		out = append(out, eventlog.Message{Kind: eventlog.KindPrediction, Value: v, Offset: int64(i)})
		v, _ = json.Marshal(eventlog.Metric{OrgID: "o", ModelID: "m", ID: fmt.Sprintf("m%d", i)})
		out = append(out, eventlog.Message{Kind: eventlog.KindMetric, Value: v, Offset: int64(i)})
	}
	return out
}

func TestProcessorSetsPoisonAside(t *testing.T) {
	for _, c := range []struct {
		name   string
		poison []string
	}{
		{"none", nil},
		{"first", []string{"p0"}},
		{"last", []string{"m9"}},
		{"several", []string{"p3", "p4", "m0", "m7"}},
		{"every prediction", []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}},
	} {
		eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
			t.Run(c.name, func(t *testing.T) { testPoisonAside(t, batches(mixed(10), msgs(1)), c.poison) })
		})
	}
}

// testPoisonAside runs two batches, the first holding poisoned events,
// through a processor whose store is down at first.
func testPoisonAside(t *testing.T, src batches, poisoned []string) {
	poison := map[string]bool{}
	for _, id := range poisoned {
		poison[id] = true
	}
	sink, dead, profiles := &flaky{down: true, poison: poison}, &letters{}, &memProfiles{}
	reg := prometheus.NewRegistry()
	p := &Processor{Source: src, Sink: sink, DeadLetters: dead, Profiles: profiles, Metrics: NewMetrics(reg), Log: quiet(),
		MaxBackoff: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	eventually(t, "a failed write", func() bool { _, w := sink.counts(); return w >= 1 })
	sink.set(false)
	eventually(t, "both batches committed", func() bool { return src.Committed() == 2 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	got := dead.ids()
	slices.Sort(got)
	want := slices.Clone(poisoned)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got dead letters %v, want %v", got, want)
	}
	sink.mu.Lock()
	stored := len(slices.Compact(slices.Sorted(slices.Values(sink.ids))))
	sink.mu.Unlock()
	if want := 21 - len(poisoned); stored != want {
		t.Fatalf("got %d distinct events stored, want %d", stored, want)
	}
	// Only the stored predictions are profiled.
	k := analytics.ProfileKey{OrgID: "o", ModelID: "m", Side: analytics.SideInput}
	snaps, err := profiles.LoadProfiles(context.Background(), []analytics.ProfileKey{k})
	if err != nil {
		t.Fatal(err)
	}
	var profiled int64
	if snaps[k] != nil {
		profiled = snaps[k].Profile.Rows
	}
	if want := int64(10 - len(slices.DeleteFunc(slices.Clone(poisoned), func(id string) bool { return id[0] != 'p' }))); profiled != want {
		t.Fatalf("got %d predictions profiled, want %d", profiled, want)
	}
	if n := counted(t, reg, "vigil_processor_dead_letters_total"); n != float64(len(poisoned)) {
		t.Fatalf("got vigil_processor_dead_letters_total %v, want %d", n, len(poisoned))
	}
}

func TestBatchSplit(t *testing.T) {
	var b analytics.Batch
	for i := range 3 {
		b.Predictions = append(b.Predictions, eventlog.Prediction{PredictionID: fmt.Sprint("p", i)})
	}
	for i := range 4 {
		b.Metrics = append(b.Metrics, eventlog.Metric{ID: fmt.Sprint("m", i)})
	}
	first, second := split(b)
	if got, want := batchIDs(first), []string{"p0", "p1", "p2"}; !slices.Equal(got, want) {
		t.Fatalf("got first half %v, want %v", got, want)
	}
	if got, want := batchIDs(second), []string{"m0", "m1", "m2", "m3"}; !slices.Equal(got, want) {
		t.Fatalf("got second half %v, want %v", got, want)
	}
}

func TestProcessorStopsWithoutDeadLetters(t *testing.T) {
	eachSource(t, func(t *testing.T, batches func(...[]eventlog.Message) batches) {
		src := batches(mixed(2))
		p := &Processor{Source: src, Sink: &flaky{poison: map[string]bool{"p1": true}}, Log: quiet()}
		if err := p.Run(context.Background()); !analytics.IsPermanent(err) {
			t.Fatalf("Run: got %v, want the permanent write error", err)
		}
		if c := src.Committed(); c != 0 {
			t.Fatalf("got %d commits, want 0", c)
		}
	})
}

// counted sums the counter name over its labels.
func counted(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}
