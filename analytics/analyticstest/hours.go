package analyticstest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// testStatsOverHours writes predictions spread over five hours, in
// batches that overlap (replays), then asks for stats over ranges that
// start and end anywhere: hours read from the hour rollup and the minutes
// around them from the minute rollup add up to exactly what the rows say.
func testStatsOverHours(t *testing.T, s Store) {
	r := rand.New(rand.NewPCG(3, 5))
	classes := []string{"approved", "denied", "review"}
	var ps []eventlog.Prediction
	for i := range 2000 {
		latency := math.Round(r.ExpFloat64()*4000) / 100
		out := fmt.Sprintf(`{"decision":%q,"score":%v,"tier":%d}`, classes[r.IntN(3)], r.Float64(), r.IntN(2))
		ps = append(ps, eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("h%04d", i),
			InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(out), Metadata: json.RawMessage(`{}`),
			LatencyMS: &latency, Timestamp: base.Add(time.Duration(r.Int64N(int64(5 * time.Hour))))})
	}
	for lo := 0; lo < len(ps); lo += 300 {
		write(t, s, ps[max(lo-50, 0):min(lo+300, len(ps))]...)
	}
	f := func(from, to time.Time) {
		t.Helper()
		st, err := s.PredictionStats(context.Background(), "o1", "m1", analytics.Range{From: from, To: to})
		if err != nil {
			t.Fatalf("PredictionStats(%v, %v): %v", from, to, err)
		}
		want := exactStats(ps, from, to)
		if st.TotalPredictions != want.n {
			t.Fatalf("[%v, %v): got %d predictions, want %d", from, to, st.TotalPredictions, want.n)
		}
		if want.n == 0 {
			if st.AvgLatencyMS != nil || len(st.Outputs) != 0 {
				t.Fatalf("[%v, %v): got avg %v, outputs %v for no predictions, want nil and none", from, to, st.AvgLatencyMS, st.Outputs)
			}
			return
		}
		if *st.MinLatencyMS != want.latencies[0] || *st.MaxLatencyMS != want.latencies[len(want.latencies)-1] ||
			math.Abs(*st.AvgLatencyMS-want.avg) > 1e-9*want.avg {
			t.Fatalf("[%v, %v): got latency min %v max %v avg %v, want %v %v %v", from, to, *st.MinLatencyMS,
				*st.MaxLatencyMS, *st.AvgLatencyMS, want.latencies[0], want.latencies[len(want.latencies)-1], want.avg)
		}
		percentiles(t, st, want.latencies)
		if !reflect.DeepEqual(st.Outputs, want.outputs) {
			t.Fatalf("[%v, %v): got outputs %s, want %s", from, to, text(t, st.Outputs), text(t, want.outputs))
		}
	}
	f(base, base.Add(5*time.Hour))
	f(base.Add(-time.Hour), base.Add(24*time.Hour))
	f(base.Add(17*time.Minute+3*time.Second), base.Add(4*time.Hour+2*time.Minute+30*time.Second))
	f(base.Add(59*time.Minute), base.Add(61*time.Minute))
	f(base.Add(time.Hour), base.Add(2*time.Hour))
	f(base.Add(6*time.Hour), base.Add(7*time.Hour))
	for range 20 {
		a, b := base.Add(time.Duration(r.Int64N(int64(5*time.Hour)))), base.Add(time.Duration(r.Int64N(int64(5*time.Hour))))
		if b.Before(a) {
			a, b = b, a
		}
		f(a, b.Add(time.Second))
	}
}

// exact is what the rows of a range add up to.
type exact struct {
	n         int64
	latencies []float64 // sorted
	avg       float64
	outputs   analytics.OutputDistribution
}

// exactStats sums ps in the range the stores read for [from, to): whole
// minutes, from the start of from's minute to the end of the minute
// before to.
func exactStats(ps []eventlog.Prediction, from, to time.Time) exact {
	from = from.Truncate(time.Minute)
	if end := to.Truncate(time.Minute); end.Before(to) {
		to = end.Add(time.Minute)
	}
	e := exact{outputs: analytics.OutputDistribution{}}
	var sum float64
	for _, p := range ps {
		if p.Timestamp.Before(from) || !p.Timestamp.Before(to) {
			continue
		}
		e.n++
		e.latencies = append(e.latencies, *p.LatencyMS)
		sum += *p.LatencyMS
		for _, l := range analytics.OutputLabels(p.OutputData) {
			e.outputs.Add(l, 1)
		}
	}
	slices.Sort(e.latencies)
	if e.n > 0 {
		e.avg = sum / float64(e.n)
	}
	return e
}

// text is v as JSON; a value that does not encode fails the test, so
// that two such values never compare equal as "".
func text(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}

// FillHours checks that a store kept before the hour rollups existed gets
// its hours from its minutes: it writes predictions, metric values and
// completions to s, takes every hour rollup away with drop (as an older
// store lacks them) and reads stats, series and totals again from a store
// opened with reopen.
func FillHours(t *testing.T, s Store, drop func(t *testing.T), reopen func(t *testing.T) Store) {
	var ps []eventlog.Prediction
	for i := range 400 { // 400 s from base, within its hour
		p := Prediction("o1", "m1", i*10, float64(i%7)) // 4,000 s: two hours
		p.OutputData = json.RawMessage(fmt.Sprintf(`{"label":"c%d"}`, i%3))
		ps = append(ps, p)
	}
	write(t, s, ps...)
	seriesEvents(t, s)
	r := analytics.Range{From: base, To: base.Add(5 * time.Hour)}
	read := func(s Store) string {
		t.Helper()
		st, err := s.PredictionStats(context.Background(), "o1", "m1", r)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := s.MetricSeries(context.Background(), analytics.MetricFilter{OrgID: "o1", ModelID: "m1", MetricType: "accuracy", Range: r},
			analytics.Buckets{Range: r, Width: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := s.CompletionGroups(context.Background(), "o1", "m1", r)
		if err != nil {
			t.Fatal(err)
		}
		if st.TotalPredictions != 400 || len(ms) != 5 || len(cs) != 2 {
			t.Fatalf("got %d predictions, %d metric hours, %d LLMs; want 400, 5, 2", st.TotalPredictions, len(ms), len(cs))
		}
		return text(t, []any{st, ms, cs})
	}
	before := read(s)
	drop(t)
	if after := read(reopen(t)); after != before {
		t.Fatalf("got %s after filling the hours, want %s", after, before)
	}
}

// testPredictionCounts: one read counts the predictions of several models
// over ranges that start and end anywhere (hours and the minutes around
// them), as many as PredictionStats counts model by model, with batches
// replayed; a model without predictions in the range, another
// organization's and one not asked for are absent.
func testPredictionCounts(t *testing.T, s Store) {
	spreadOverHours(t, s, 7, "c")
	models := []string{"m1", "m2", "m4"}
	f := func(from, to time.Time) {
		t.Helper()
		rg := analytics.Range{From: from, To: to}
		got, err := s.PredictionCounts(context.Background(), "o1", models, rg)
		if err != nil {
			t.Fatalf("PredictionCounts(%v, %v): %v", from, to, err)
		}
		want := map[string]int64{}
		for _, m := range models {
			st, err := s.PredictionStats(context.Background(), "o1", m, rg)
			if err != nil {
				t.Fatalf("PredictionStats(%s, %v, %v): %v", m, from, to, err)
			}
			if st.TotalPredictions > 0 {
				want[m] = st.TotalPredictions
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("[%v, %v): got counts %v, want %v", from, to, got, want)
		}
	}
	f(base, base.Add(4*time.Hour))
	f(base.Add(17*time.Minute), base.Add(3*time.Hour+41*time.Minute))
	f(base.Add(5*time.Minute), base.Add(50*time.Minute))
	f(base.Add(5*time.Hour), base.Add(6*time.Hour))
	got, err := s.PredictionCounts(context.Background(), "o1", nil, analytics.Range{From: base, To: base.Add(time.Hour)})
	if err != nil || len(got) != 0 {
		t.Fatalf("PredictionCounts of no model: got %v, %v, want none", got, err)
	}
	all, err := s.PredictionCounts(context.Background(), "o1", []string{"m1", "m2", "m3"}, analytics.Range{From: base, To: base.Add(4 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if n := all["m1"] + all["m2"] + all["m3"]; n != 810 {
		t.Fatalf("got %d predictions of o1 over the whole range, want 810", n)
	}
}

// spreadOverHours writes 900 predictions over four hours from base, 810 of
// o1 and 90 of o2, a third each of m1, m2 and m3, with latencies and labels,
// in batches that overlap (replays); ids start with prefix.
func spreadOverHours(t *testing.T, s Store, seed uint64, prefix string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	var ps []eventlog.Prediction
	for i := range 900 {
		org, model := "o1", []string{"m1", "m2", "m3"}[i%3]
		if i%10 == 0 {
			org = "o2"
		}
		l := float64(r.IntN(1000)) / 4
		ps = append(ps, eventlog.Prediction{OrgID: org, ModelID: model, PredictionID: fmt.Sprintf("%s%04d", prefix, i),
			InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(fmt.Sprintf(`{"label":"c%d"}`, i%4)), Metadata: json.RawMessage(`{}`),
			LatencyMS: &l, Timestamp: base.Add(time.Duration(r.Int64N(int64(4 * time.Hour))))})
	}
	for lo := 0; lo < len(ps); lo += 200 {
		write(t, s, ps[max(lo-40, 0):min(lo+200, len(ps))]...)
	}
}
