package analyticstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// testLLMRollups writes 101 completions of one provider's model with
// latencies 1 to 101 ms, every tenth failed and every fifth checked for
// toxicity (every 25th flagged), and a batch of another provider's two
// hours later written twice: the groups by provider and model, their
// percentiles (NumPy's linear: 51, 96, 100) and the hourly trend count
// each once, within the organization, model and range.
func testLLMRollups(t *testing.T, s Store) {
	var cs []eventlog.Completion
	for i := 1; i <= 101; i++ {
		c := completion("o1", "m1", "gpt-4o", i, 1, 0.5, nil)
		ms := float64(i)
		c.LatencyMS = &ms
		if i%10 == 0 {
			c.Error = "rate_limited"
		}
		if i%5 == 0 {
			c.Toxicity = &eventlog.Toxicity{Scorer: "test", Scores: map[string]float64{"toxicity": 0.1}, Flagged: i%25 == 0}
		}
		cs = append(cs, c)
	}
	later := []eventlog.Completion{
		completion("o1", "m1", "claude", 201, 2, 1, nil),
		completion("o1", "m1", "claude", 202, 2, 1, nil),
		completion("o1", "m2", "claude", 203, 2, 1, nil),
		completion("o2", "m1", "claude", 204, 2, 1, nil),
	}
	for i := range later {
		later[i].Provider = "anthropic"
		later[i].Timestamp = base.Add(2*time.Hour + time.Duration(i)*time.Second)
	}
	for _, b := range [][]eventlog.Completion{cs[:50], cs[50:], later, later} {
		if err := s.Write(context.Background(), analytics.Batch{Completions: b}); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	groups := func(model string, r analytics.Range) string {
		t.Helper()
		got, err := s.LLMGroups(context.Background(), "o1", model, r)
		if err != nil {
			t.Fatalf("LLMGroups: %v", err)
		}
		var out string
		for _, g := range got {
			p50, err := g.Percentile(0.5)
			if err != nil {
				t.Fatal(err)
			}
			p95, _ := g.Percentile(0.95)
			p99, _ := g.Percentile(0.99)
			out += fmt.Sprintf("%s/%s n=%d err=%d tok=%d cost=%g scored=%d flagged=%d lat=%d/%g p=%s,%s,%s; ", g.Provider, g.Model,
				g.Completions, g.Errors, g.TotalTokens, g.Cost, g.Scored, g.Flagged, g.LatencyCount, g.LatencySum, ptr(p50), ptr(p95), ptr(p99))
		}
		return out
	}
	three := analytics.Range{From: base, To: base.Add(3 * time.Hour)}
	for _, c := range []struct {
		name, model string
		r           analytics.Range
		want        string
	}{
		{"model", "m1", three, "anthropic/claude n=2 err=0 tok=12 cost=2 scored=0 flagged=0 lat=0/0 p=nil,nil,nil; " +
			"openai/gpt-4o n=101 err=10 tok=303 cost=50.5 scored=20 flagged=4 lat=101/5151 p=51,96,100; "},
		{"organization", "", three, "anthropic/claude n=3 err=0 tok=18 cost=3 scored=0 flagged=0 lat=0/0 p=nil,nil,nil; " +
			"openai/gpt-4o n=101 err=10 tok=303 cost=50.5 scored=20 flagged=4 lat=101/5151 p=51,96,100; "},
		{"second minute on", "m1", analytics.Range{From: base.Add(time.Minute), To: base.Add(time.Hour)},
			"openai/gpt-4o n=42 err=5 tok=126 cost=21 scored=9 flagged=2 lat=42/3381 p=80.5,98.95,100.59; "},
		{"none", "m1", analytics.Range{From: base.Add(-time.Hour), To: base}, ""},
	} {
		if got := groups(c.model, c.r); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	trend, err := s.LLMTrend(context.Background(), "o1", "m1", analytics.Buckets{Range: three, Width: time.Hour})
	if err != nil {
		t.Fatalf("LLMTrend: %v", err)
	}
	var got string
	for _, p := range trend {
		got += fmt.Sprintf("%s n=%d err=%d; ", p.Start.Format(time.RFC3339), p.Completions, p.Errors)
	}
	if want := "2026-03-01T12:00:00Z n=101 err=10; 2026-03-01T14:00:00Z n=2 err=0; "; got != want {
		t.Errorf("trend: got %s, want %s", got, want)
	}
}

func ptr(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%.6g", *v)
}
