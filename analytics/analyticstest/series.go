package analyticstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

func metric(org, model, typ string, i int, at time.Duration, v float64) eventlog.Metric {
	return eventlog.Metric{OrgID: org, ModelID: model, ID: fmt.Sprintf("%s-%s-%d", typ, model, i), MetricType: typ, Value: v,
		Metadata: map[string]any{}, Timestamp: base.Add(at)}
}

// testMetricSeries writes accuracy values over three hours, twice, with
// other types, models and organizations around: sums by hour and over the
// whole range count each value once and only the filter's.
func testMetricSeries(t *testing.T, s Store) {
	var ms []eventlog.Metric
	for i := range 180 { // one a minute, values 0..179
		ms = append(ms, metric("o1", "m1", "accuracy", i, time.Duration(i)*time.Minute, float64(i)))
	}
	others := []eventlog.Metric{metric("o1", "m1", "f1", 0, 0, 1000), metric("o1", "m2", "accuracy", 0, 0, 1000),
		metric("o2", "m1", "accuracy", 0, 0, 1000)}
	for _, b := range [][]eventlog.Metric{append(ms[:100:100], others...), ms[60:], ms[:10]} {
		if err := s.Write(context.Background(), analytics.Batch{Metrics: b}); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	f := analytics.MetricFilter{OrgID: "o1", ModelID: "m1", MetricType: "accuracy"}
	series := func(r analytics.Range, width time.Duration) string {
		t.Helper()
		f.Range = r
		got, err := s.MetricSeries(context.Background(), f, analytics.Buckets{Range: r, Width: width})
		if err != nil {
			t.Fatalf("MetricSeries: %v", err)
		}
		return fmt.Sprint(got)
	}
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	s3 := func(h, n int, sum, lo, hi float64) string {
		return fmt.Sprint(analytics.Summary{Start: at(h), Count: int64(n), Sum: sum, Min: lo, Max: hi})
	}
	for _, c := range []struct {
		name  string
		r     analytics.Range
		width time.Duration
		want  string
	}{
		{"whole", analytics.Range{From: at(0), To: at(3)}, 0, "[" + s3(0, 180, 16110, 0, 179) + "]"},
		{"hours", analytics.Range{From: at(0), To: at(3)}, time.Hour,
			"[" + s3(0, 60, 1770, 0, 59) + " " + s3(1, 60, 5370, 60, 119) + " " + s3(2, 60, 8970, 120, 179) + "]"},
		{"partial", analytics.Range{From: at(1), To: at(1).Add(2 * time.Minute)}, 0, "[" + s3(1, 2, 121, 60, 61) + "]"},
		{"empty", analytics.Range{From: at(5), To: at(6)}, time.Hour, "[]"},
	} {
		if got := series(c.r, c.width); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func completion(org, model, name string, i int, tokens int64, cost float64, latency *float64) eventlog.Completion {
	return eventlog.Completion{OrgID: org, ModelID: model, ID: fmt.Sprintf("c-%s-%d", model, i), Provider: "openai", ModelName: name,
		Prompt: "p", Completion: "c", Tokens: eventlog.Tokens{PromptTokens: tokens, CompletionTokens: 2 * tokens, TotalTokens: 3 * tokens},
		LatencyMS: latency, Cost: cost, Metadata: map[string]any{}, Timestamp: base.Add(time.Duration(i) * time.Second)}
}

// testCompletionGroups writes completions of two LLMs, one batch twice
// and two of its ids again at a later time (a client's retry): groups by
// model_name count each once, within the organization, model
// and range.
func testCompletionGroups(t *testing.T, s Store) {
	ms := func(v float64) *float64 { return &v }
	cs := []eventlog.Completion{
		completion("o1", "m1", "gpt-4o", 1, 10, 0.5, ms(100)),
		completion("o1", "m1", "gpt-4o", 2, 20, 0.25, ms(300)),
		completion("o1", "m1", "claude", 3, 5, 0.125, nil),
		completion("o1", "m2", "claude", 4, 1, 1, ms(50)),
		completion("o2", "m1", "gpt-4o", 5, 1000, 1000, ms(1)),
	}
	cs[1].Timestamp = base.Add(90 * time.Second) // another minute
	// A client's retry of two completion ids, later: stored once.
	retry := []eventlog.Completion{cs[0], cs[2]}
	for i := range retry {
		retry[i].Timestamp = base.Add(30 * time.Minute)
	}
	for _, b := range [][]eventlog.Completion{cs, cs[:3], retry} {
		if err := s.Write(context.Background(), analytics.Batch{Completions: b}); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	groups := func(model string, r analytics.Range) string {
		t.Helper()
		got, err := s.CompletionGroups(context.Background(), "o1", model, r)
		if err != nil {
			t.Fatalf("CompletionGroups: %v", err)
		}
		return fmt.Sprint(got)
	}
	hour := analytics.Range{From: base, To: base.Add(time.Hour)}
	for _, c := range []struct {
		name, model string
		r           analytics.Range
		want        []analytics.CompletionGroup
	}{
		{"model", "m1", hour, []analytics.CompletionGroup{
			{Model: "claude", Completions: 1, PromptTokens: 5, CompletionTokens: 10, TotalTokens: 15, Cost: 0.125},
			{Model: "gpt-4o", Completions: 2, PromptTokens: 30, CompletionTokens: 60, TotalTokens: 90, Cost: 0.75, LatencyCount: 2, LatencySum: 400},
		}},
		{"organization", "", hour, []analytics.CompletionGroup{
			{Model: "claude", Completions: 2, PromptTokens: 6, CompletionTokens: 12, TotalTokens: 18, Cost: 1.125, LatencyCount: 1, LatencySum: 50},
			{Model: "gpt-4o", Completions: 2, PromptTokens: 30, CompletionTokens: 60, TotalTokens: 90, Cost: 0.75, LatencyCount: 2, LatencySum: 400},
		}},
		{"first minute", "m1", analytics.Range{From: base, To: base.Add(time.Minute)}, []analytics.CompletionGroup{
			{Model: "claude", Completions: 1, PromptTokens: 5, CompletionTokens: 10, TotalTokens: 15, Cost: 0.125},
			{Model: "gpt-4o", Completions: 1, PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30, Cost: 0.5, LatencyCount: 1, LatencySum: 100},
		}},
		{"none", "m1", analytics.Range{From: base.Add(-time.Hour), To: base}, []analytics.CompletionGroup{}},
	} {
		if got, want := groups(c.model, c.r), fmt.Sprint(c.want); got != want {
			t.Errorf("%s: got %s, want %s", c.name, got, want)
		}
	}
}
