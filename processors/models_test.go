package processors

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/eventlog"
)

// registry is a Models over a fixed set of "org/model" names that counts
// its lookups; it fails while down.
type registry struct {
	mu      sync.Mutex
	models  map[string]bool
	lookups int
	down    bool
}

func (r *registry) ModelExists(_ context.Context, org, model string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if r.down {
		return false, errors.New("registry down")
	}
	return r.models[org+"/"+model], nil
}

func (r *registry) delete(name string) { r.mu.Lock(); delete(r.models, name); r.mu.Unlock() }

func (r *registry) count() int { r.mu.Lock(); defer r.mu.Unlock(); return r.lookups }

// events is one message per model named, in order: a prediction, a metric
// and a completion in turn.
func events(models ...string) []eventlog.Message {
	var out []eventlog.Message
	for i, m := range models {
		var kind string
		var v []byte
		switch i % 3 {
		case 0:
			kind, v = eventlog.KindPrediction, must(json.Marshal(eventlog.Prediction{OrgID: "o", ModelID: m, PredictionID: string(rune('a' + i))}))
		case 1:
			kind, v = eventlog.KindMetric, must(json.Marshal(eventlog.Metric{OrgID: "o", ModelID: m, ID: string(rune('a' + i))}))
		default:
			kind, v = eventlog.KindCompletion, must(json.Marshal(eventlog.Completion{OrgID: "o", ModelID: m, ID: string(rune('a' + i))}))
		}
		out = append(out, eventlog.Message{Kind: kind, Value: v, Offset: int64(i)})
	}
	return out
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestProcessorDropsDeletedModels(t *testing.T) {
	reg := &registry{models: map[string]bool{"o/kept": true, "o/late": true}, down: true}
	src := eventlog.NewBatches(
		events("kept", "gone", "kept", "gone", "gone", "kept"),
		events("late", "kept", "late"),
	)
	sink := &flaky{}
	metrics := prometheus.NewRegistry()
	p := &Processor{Source: src, Sink: sink, Models: reg, ModelTTL: time.Hour, Metrics: NewMetrics(metrics), Log: quiet(),
		MaxBackoff: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()

	eventually(t, "lookups while the registry is down", func() bool { return reg.count() >= 2 })
	if c := src.Committed(); c != 0 {
		t.Fatalf("got %d batches committed while the registry is down, want 0", c)
	}
	reg.mu.Lock()
	reg.down, reg.lookups = false, 0
	reg.mu.Unlock()
	eventually(t, "both batches committed", func() bool { return src.Committed() == 2 })
	cancel()
	<-done
	if s, _ := sink.counts(); s != 3+3 {
		t.Fatalf("got %d events stored, want 6: kept's and late's, not gone's", s)
	}
	if n := counted(t, metrics, "vigil_processor_dropped_events_total"); n != 3 {
		t.Fatalf("got %v events counted dropped, want 3", n)
	}
	if n := reg.count(); n != 3 {
		t.Fatalf("got %d registry lookups, want 3: one per model, then the cache", n)
	}
}

func TestModelCacheExpires(t *testing.T) {
	reg := &registry{models: map[string]bool{"o/m": true}}
	c := &modelCache{models: reg, ttl: time.Minute}
	now := time.Now()
	for _, step := range []struct {
		at     time.Duration
		delete bool
		want   bool
	}{
		{0, false, true},
		{30 * time.Second, true, true}, // deleted, but the answer is trusted for a minute
		{61 * time.Second, false, false},
	} {
		if step.delete {
			reg.delete("o/m")
		}
		got, err := c.exists(context.Background(), modelRef{"o", "m"}, now.Add(step.at))
		if err != nil || got != step.want {
			t.Fatalf("at %v: got %v, %v, want %v", step.at, got, err, step.want)
		}
	}
}

func TestKeepIf(t *testing.T) {
	es := []int{1, 2, 3, 4}
	for _, c := range []struct {
		drop map[int]bool
		want []int
	}{
		{nil, []int{1, 2, 3, 4}},
		{map[int]bool{1: true}, []int{2, 3, 4}},
		{map[int]bool{3: true}, []int{1, 2, 4}},
		{map[int]bool{4: true}, []int{1, 2, 3}},
		{map[int]bool{1: true, 3: true}, []int{2, 4}},
		{map[int]bool{1: true, 2: true, 3: true, 4: true}, []int{}},
	} {
		got, err := keepIf(es, func(e int) (bool, error) { return !c.drop[e], nil })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("dropping %v: got %v, want %v", c.drop, got, c.want)
		}
		if len(c.drop) == 0 && &got[0] != &es[0] {
			t.Errorf("dropping nothing: got a copy, want the slice given")
		}
	}
	if !slices.Equal(es, []int{1, 2, 3, 4}) {
		t.Errorf("got the input changed to %v", es)
	}
}
