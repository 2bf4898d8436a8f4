package analyticstest

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// seriesEvents writes metric values and completions spread over five
// hours, in overlapping batches (replays). Values are multiples of 1/4, so
// that sums are exact whatever their order.
func seriesEvents(t *testing.T, s Store) ([]eventlog.Metric, []eventlog.Completion) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 9))
	var ms []eventlog.Metric
	var cs []eventlog.Completion
	for i := range 1500 {
		at := time.Duration(r.Int64N(int64(5 * time.Hour)))
		ms = append(ms, metric("o1", "m1", "accuracy", i, at, float64(r.IntN(400))/4))
		latency := float64(r.IntN(4000)) / 4
		c := completion("o1", "m1", []string{"gpt", "claude"}[r.IntN(2)], i, int64(r.IntN(500)), float64(r.IntN(100))/4, &latency)
		c.Timestamp = base.Add(at)
		cs = append(cs, c)
	}
	for lo := 0; lo < len(ms); lo += 200 {
		hi := min(lo+200, len(ms))
		if err := s.Write(context.Background(), analytics.Batch{Metrics: ms[max(lo-30, 0):hi], Completions: cs[max(lo-30, 0):hi]}); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	return ms, cs
}

// testSeriesOverHours checks metric series and completion totals over
// ranges and bucket widths of all kinds against the exact sums of the
// events: whole hours read from the hour rollups, the rest from minutes.
func testSeriesOverHours(t *testing.T, s Store) {
	ms, cs := seriesEvents(t, s)
	f := func(from, to time.Time, width time.Duration) {
		t.Helper()
		rg := analytics.Range{From: from, To: to}
		got, err := s.MetricSeries(context.Background(), analytics.MetricFilter{OrgID: "o1", ModelID: "m1", MetricType: "accuracy", Range: rg},
			analytics.Buckets{Range: rg, Width: width})
		if err != nil {
			t.Fatalf("MetricSeries: %v", err)
		}
		if want := exactSeries(ms, rg, width); !reflect.DeepEqual(got, want) {
			t.Fatalf("[%v, %v) by %v: got series %v, want %v", from, to, width, got, want)
		}
		groups, err := s.CompletionGroups(context.Background(), "o1", "m1", rg)
		if err != nil {
			t.Fatalf("CompletionGroups: %v", err)
		}
		if want := exactGroups(cs, rg); !reflect.DeepEqual(groups, want) {
			t.Fatalf("[%v, %v): got groups %v, want %v", from, to, groups, want)
		}
	}
	for _, width := range []time.Duration{0, time.Hour, 2 * time.Hour, 24 * time.Hour, 90 * time.Minute, 10 * time.Minute} {
		f(base, base.Add(5*time.Hour), width)
		f(base.Add(-2*time.Hour), base.Add(22*time.Hour), width)
		f(base.Add(13*time.Minute+5*time.Second), base.Add(3*time.Hour+59*time.Minute+1), width)
		f(base.Add(time.Hour), base.Add(4*time.Hour+30*time.Second), width)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		a, b := base.Add(time.Duration(r.Int64N(int64(5*time.Hour)))), base.Add(time.Duration(r.Int64N(int64(5*time.Hour))))
		if b.Before(a) {
			a, b = b, a
		}
		f(a, b.Add(time.Second), 0)
	}
}

// minutes widens r as the stores read it: whole minutes.
func minutes(r analytics.Range) (from, to time.Time) {
	from, to = r.From.Truncate(time.Minute), r.To.Truncate(time.Minute)
	if to.Before(r.To) {
		to = to.Add(time.Minute)
	}
	return from, to
}

func exactSeries(ms []eventlog.Metric, r analytics.Range, width time.Duration) []analytics.Summary {
	from, to := minutes(r)
	if width <= 0 {
		width = max(to.Sub(from), time.Microsecond)
	}
	byK := map[int64]*analytics.Summary{}
	for _, m := range ms {
		if m.Timestamp.Before(from) || !m.Timestamp.Before(to) {
			continue
		}
		k := int64(m.Timestamp.Truncate(time.Minute).Sub(from) / width)
		s := byK[k]
		if s == nil {
			s = &analytics.Summary{Start: from.Add(time.Duration(k) * width), Min: m.Value, Max: m.Value}
			byK[k] = s
		}
		s.Count++
		s.Sum += m.Value
		s.Min, s.Max = min(s.Min, m.Value), max(s.Max, m.Value)
	}
	out := []analytics.Summary{}
	for _, s := range byK {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b analytics.Summary) int { return a.Start.Compare(b.Start) })
	return out
}

func exactGroups(cs []eventlog.Completion, r analytics.Range) []analytics.CompletionGroup {
	from, to := minutes(r)
	by := map[string]*analytics.CompletionGroup{}
	for _, c := range cs {
		if c.Timestamp.Before(from) || !c.Timestamp.Before(to) {
			continue
		}
		g := by[c.ModelName]
		if g == nil {
			g = &analytics.CompletionGroup{Model: c.ModelName}
			by[c.ModelName] = g
		}
		g.Add(analytics.CompletionGroup{Completions: 1, PromptTokens: c.Tokens.PromptTokens, CompletionTokens: c.Tokens.CompletionTokens,
			TotalTokens: c.Tokens.TotalTokens, Cost: c.Cost, LatencyCount: 1, LatencySum: *c.LatencyMS})
	}
	out := []analytics.CompletionGroup{}
	for _, g := range by {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b analytics.CompletionGroup) int { return strings.Compare(a.Model, b.Model) })
	return out
}
