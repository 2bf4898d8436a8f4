package alerts

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestMoves walks the state machine: every action from every status is
// allowed exactly as the table in doc.go says, and an illegal one changes
// nothing.
func TestMoves(t *testing.T) {
	legal := map[string][]Status{
		ActionAcknowledge: {StatusOpen, StatusSnoozed},
		ActionSnooze:      {StatusOpen, StatusAcknowledged, StatusSnoozed},
		ActionResolve:     {StatusOpen, StatusAcknowledged, StatusSnoozed},
		ActionReopen:      {StatusSnoozed},
		ActionAutoResolve: {StatusOpen, StatusAcknowledged, StatusSnoozed},
	}
	to := map[string]Status{ActionAcknowledge: StatusAcknowledged, ActionSnooze: StatusSnoozed, ActionResolve: StatusResolved,
		ActionReopen: StatusOpen, ActionAutoResolve: StatusResolved}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.FixedZone("X", 3600))
	until := at.Add(time.Hour)
	stored := at.Truncate(time.Microsecond) // as Apply keeps it
	for action, from := range legal {
		for _, s := range Statuses {
			in := Instance{Status: s}
			err := in.Apply(action, "u", at, &until, "n")
			ok := false
			for _, f := range from {
				ok = ok || f == s
			}
			var illegal *IllegalMove
			switch {
			case ok && err != nil:
				t.Errorf("%s from %s: got %v, want it allowed", action, s, err)
			case ok && (in.Status != to[action] || len(in.History) != 1 || in.History[0].From != s || !in.History[0].At.Equal(stored) ||
				(in.History[0].Until != nil) != (action == ActionSnooze) ||
				in.History[0].At.Location() != time.UTC):
				t.Errorf("%s from %s: got %+v, want %s with one move recorded at %v in UTC", action, s, in, to[action], at)
			case !ok && (!errors.As(err, &illegal) || in.Status != s || len(in.History) != 0):
				t.Errorf("%s from %s: got %v and %+v, want an IllegalMove and nothing changed", action, s, err, in)
			}
		}
	}
	in := Instance{Status: StatusOpen}
	_ = in.Apply(ActionAcknowledge, "a", at, nil, "")
	_ = in.Apply(ActionSnooze, "b", at.Add(time.Minute), &until, "")
	_ = in.Apply(ActionAcknowledge, "c", at.Add(2*time.Minute), nil, "")
	if !in.AcknowledgedAt.Equal(stored) || in.AcknowledgedBy != "c" || in.SnoozedUntil != nil {
		t.Errorf("acknowledged twice: got at %v by %q until %v, want the first time kept, the last user, no snooze", in.AcknowledgedAt, in.AcknowledgedBy, in.SnoozedUntil)
	}
}

func TestConditionHolds(t *testing.T) {
	for _, tc := range []struct {
		op   string
		v    float64
		want bool
	}{{"gt", 2, true}, {"gt", 1, false}, {"gte", 1, true}, {"lt", 0.5, true}, {"lt", 1, false}, {"lte", 1, true},
		{"eq", 1, true}, {"eq", 1.0001, false}, {"ne", 2, true}, {"ne", 1, false}, {"between", 1, false}} {
		if got := (Condition{Operator: tc.op, Threshold: 1}).Holds(tc.v); got != tc.want {
			t.Errorf("%v %s 1: got %v, want %v", tc.v, tc.op, got, tc.want)
		}
	}
}

func TestMetricNames(t *testing.T) {
	for name, ok := range map[string]bool{"prediction_count": true, "latency_p95_ms": true, "llm_cost": true, "metric:accuracy": true,
		"metric: f1 ": true, "metric:": false, "metric:   ": false, "metric:" + strings.Repeat("a", 256): false,
		"drift_score": true, "drift_score:age": true, "drift_score: ": false, "latency_p42_ms": false,
		"": false, "metric": false} {
		if got := metricProblem(name) == ""; got != ok {
			t.Errorf("metricProblem(%q): got accepted %v, want %v", name, got, ok)
		}
	}
}

func TestTargets(t *testing.T) {
	for _, tc := range []struct {
		ch Channel
		ok bool
	}{
		{Channel{"webhook", "https://hooks.example.com/x"}, true}, {Channel{"slack", "https://hooks.slack.com/services/T/B/x"}, true},
		{Channel{"webhook", "ftp://example.com"}, false}, {Channel{"webhook", "https://u:p@example.com"}, false},
		{Channel{"webhook", "/relative"}, false}, {Channel{"email", "oncall@example.com"}, true},
		{Channel{"email", "On Call <oncall@example.com>"}, false}, {Channel{"email", "nobody"}, false},
	} {
		if got := targetProblem(tc.ch) == ""; got != tc.ok {
			t.Errorf("targetProblem(%+v): got accepted %v, want %v", tc.ch, got, tc.ok)
		}
	}
}

// TestConditionKey: the key changes with any part of the conditions and
// nothing else.
func TestConditionKey(t *testing.T) {
	r := Rule{Name: "a", Conditions: []Condition{{"latency_p95_ms", "gt", 500, 5}}}
	k := r.ConditionKey()
	r.Name, r.Severity, r.Enabled = "b", "high", true
	if r.ConditionKey() != k {
		t.Fatal("renaming the rule changed its condition key")
	}
	for i, c := range []Condition{{"latency_p99_ms", "gt", 500, 5}, {"latency_p95_ms", "gte", 500, 5},
		{"latency_p95_ms", "gt", 501, 5}, {"latency_p95_ms", "gt", 500, 6}} {
		if (Rule{Conditions: []Condition{c}}).ConditionKey() == k {
			t.Errorf("change %d: got the same condition key, want another", i)
		}
	}
}
