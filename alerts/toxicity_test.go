package alerts_test

import (
	"context"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
)

// TestToxicityRate observes toxicity_rate from the LLM rollups of a real
// (SQLite) analytical store: one of the window's two checked completions
// flagged is 0.5; unchecked ones do not count; a window without checks
// has no value.
func TestToxicityRate(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	end := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := func(id string, tox *eventlog.Toxicity) eventlog.Completion {
		return eventlog.Completion{OrgID: "o", ModelID: "m", ID: id, Provider: "p", ModelName: "n", Metadata: map[string]any{},
			Toxicity: tox, Timestamp: end.Add(-10 * time.Minute)}
	}
	if err := st.Write(context.Background(), analytics.Batch{Completions: []eventlog.Completion{
		c("a", &eventlog.Toxicity{Scorer: "s", Flagged: true}), c("b", &eventlog.Toxicity{Scorer: "s"}), c("c", nil)}}); err != nil {
		t.Fatal(err)
	}
	rule := alerts.Rule{Conditions: []alerts.Condition{{MetricName: "toxicity_rate", Operator: "gt", Threshold: 0.3, WindowMinutes: 60}}}
	obs, fire, err := alerts.Observe(context.Background(), st, rule, "o", "m", end)
	if err != nil {
		t.Fatal(err)
	}
	if !fire || obs[0].Value == nil || *obs[0].Value != 0.5 {
		t.Errorf("got %+v firing %v, want toxicity_rate 0.5 over the threshold", obs, fire)
	}
	obs, fire, err = alerts.Observe(context.Background(), st, rule, "o", "m", end.Add(-time.Hour))
	if err != nil || fire || obs[0].Value != nil {
		t.Errorf("got %+v firing %v (%v) before the completions, want no value", obs, fire, err)
	}
}
