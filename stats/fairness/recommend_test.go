package fairness

import (
	"strings"
	"testing"
)

// TestRecommendationWording checks the whole sentence of each kind.
func TestRecommendationWording(t *testing.T) {
	rep := audited(t, func(in *Input) { in.Metrics = []Metric{DisparateImpact, EqualOpportunity} },
		cellsSpec{group: "female", tn: 60, fp: 9, fn: 9, tp: 22}, // selection 0.31, TPR 22/31
		cellsSpec{group: "male", tn: 40, fp: 8, fn: 8, tp: 44},   // selection 0.52, TPR 44/52
	)
	want := []string{
		"group 'female' of attribute 'a' has selection rate 0.31 vs 0.52 for 'male': disparate impact 0.60 < 0.8; " +
			"review features that stand in for a and the decision threshold applied to 'female'",
		"group 'female' of attribute 'a' has true positive rate 0.71 vs 0.85 for 'male': equal opportunity difference 0.14, not below 0.1; " +
			"review the model's errors on 'female': training coverage, label quality and its decision threshold",
	}
	if got := rep.Recommendations; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q,\nwant %q", got, want)
	}
}

// TestRecommendationsNameLowerGroupOnce: between groups a failing pair is
// named once, from the group with the lower rate, and at most three groups
// per metric are named.
func TestRecommendationsNameLowerGroupOnce(t *testing.T) {
	specs := []cellsSpec{{group: "top", tn: 10, fp: 90}}
	for _, g := range []string{"g1", "g2", "g3", "g4", "g5"} {
		specs = append(specs, cellsSpec{group: g, tn: 70, fp: 30})
	}
	rep := audited(t, func(in *Input) { in.Metrics = []Metric{DisparateImpact} }, specs...)
	got := rep.Recommendations
	if len(got) != 4 || !strings.HasPrefix(got[0], "group 'g1'") || got[3] != "2 more groups of attribute 'a' fail disparate_impact (ratio at least 0.8)" {
		t.Errorf("got %q", got)
	}
	for _, r := range got {
		if strings.HasPrefix(r, "group 'top'") {
			t.Errorf("named the favoured group: %q", r)
		}
	}
	// TPRs 0.5, 0.75, 0.8: low fails against high, mid against low; only
	// low is named.
	rep = audited(t, func(in *Input) { in.Metrics = []Metric{EqualOpportunity} },
		cellsSpec{group: "high", tn: 100, fn: 20, tp: 80},
		cellsSpec{group: "low", tn: 100, fn: 50, tp: 50},
		cellsSpec{group: "mid", tn: 100, fn: 25, tp: 75},
	)
	if got := rep.Recommendations; len(got) != 1 || !strings.HasPrefix(got[0], "group 'low' of attribute 'a' has true positive rate 0.50 vs 0.80 for 'high'") {
		t.Errorf("got %q, want low named once", got)
	}
}

func TestFigure(t *testing.T) {
	f := func(v, other float64, want string) {
		t.Helper()
		if got := figure(v, other); got != want {
			t.Errorf("figure(%v, %v): got %s, want %s", v, other, got, want)
		}
	}
	f(0.596, 0.8, "0.60")
	f(0.7999, 0.8, "0.7999")
	f(0.79999999, 0.8, "0.800000")
	f(0.8, 0.8, "0.80")
	f(0.104, 0.1, "0.104")
}
