package fairness

import (
	"math"
	"testing"
)

// Tolerance against fairlearn: 1e-9 relative, or 1e-15 absolute for values
// under 1e-6 in magnitude (a difference of two nearly equal rates).
const (
	relTol   = 1e-9
	absFloor = 1e-6
)

// goldenCheck compares one attribute's figures with golden values.
type goldenCheck struct {
	t       *testing.T
	attr    string
	checked int
	exact   int
	worst   float64 // largest relative difference seen
}

// value compares a figure; want nil means the figure must be absent.
func (ck *goldenCheck) value(what string, got float64, present bool, want *float64) {
	ck.t.Helper()
	switch {
	case want == nil && present:
		ck.t.Errorf("%s: %s: got %.17g, want none", ck.attr, what, got)
	case want == nil:
	case !present:
		ck.t.Errorf("%s: %s: got none, want %.17g", ck.attr, what, *want)
	default:
		ck.checked++
		if got == *want {
			ck.exact++
		}
		rel := math.Abs(got-*want) / math.Max(math.Abs(*want), absFloor)
		ck.worst = max(ck.worst, rel)
		if rel > relTol {
			ck.t.Errorf("%s: %s: got %.17g, want %.17g (diff %.3g)", ck.attr, what, got, *want, got-*want)
		}
	}
}

// optional compares a figure that may be absent.
func (ck *goldenCheck) optional(what string, got, want *float64) {
	ck.t.Helper()
	v := 0.0
	if got != nil {
		v = *got
	}
	ck.value(what, v, got != nil, want)
}

// rate compares a group rate. fairlearn counts an undefined TPR, FPR or FNR
// as 0: there Vigil must report it undefined and the golden value must be 0.
func (ck *goldenCheck) rate(what string, got Rate, want *float64) {
	ck.t.Helper()
	if !got.Defined() && want != nil && *want == 0 && what != "selection_rate" && what != "precision" {
		return
	}
	ck.value(what, got.Value(), got.Defined(), want)
}

func (ck *goldenCheck) groups(ar AttributeReport, want map[string]map[string]*float64) {
	ck.t.Helper()
	if len(ar.Groups) != len(want) {
		ck.t.Errorf("%s: groups: got %d, want %d", ck.attr, len(ar.Groups), len(want))
	}
	for _, g := range ar.Groups {
		w, ok := want[g.Name]
		if !ok {
			ck.t.Errorf("%s: group %q: not in golden", ck.attr, g.Name)
			continue
		}
		if got, want := float64(g.Count), *w["count"]; got != want {
			ck.t.Errorf("%s: group %q count: got %v, want %v", ck.attr, g.Name, got, want)
		}
		ck.rate(g.Name+" selection_rate", g.SelectionRate, w["selection_rate"])
		if _, labelled := w["tpr"]; !labelled {
			continue
		}
		if got, want := float64(g.Positives), *w["positives"]; got != want {
			ck.t.Errorf("%s: group %q positives: got %v, want %v", ck.attr, g.Name, got, want)
		}
		for name, r := range map[string]Rate{"tpr": g.TPR, "fpr": g.FPR, "fnr": g.FNR, "precision": g.Precision, "accuracy": g.Accuracy} {
			ck.rate(g.Name+" "+name, r, w[name])
		}
	}
}

// between compares fairlearn's between-groups differences and ratios.
func (ck *goldenCheck) between(mode string, ar AttributeReport, want map[string]*float64) {
	ck.t.Helper()
	for _, res := range ar.Results {
		prefix := string(res.Metric)
		if res.Metric == DisparateImpact {
			continue // the same selection rates as demographic parity
		}
		d, dok := want[prefix+"_difference"]
		if !dok {
			if res.Computed {
				ck.t.Errorf("%s: %s %s: computed without labels", ck.attr, mode, res.Metric)
			}
			continue
		}
		ck.optional(mode+" "+prefix+"_difference", res.Difference, d)
		ck.optional(mode+" "+prefix+"_ratio", res.Ratio, want[prefix+"_ratio"])
	}
}

// headline compares the value each pass condition tests and the verdict.
func (ck *goldenCheck) headline(ar AttributeReport, values map[string]*float64, passed map[string]bool) {
	ck.t.Helper()
	for _, res := range ar.Results {
		want, ok := values[string(res.Metric)]
		if !ok {
			want = nil
		}
		ck.value("headline "+string(res.Metric), res.Value, res.Computed, want)
		if p, ok := passed[string(res.Metric)]; ok && res.Computed && res.Passed != p {
			ck.t.Errorf("%s: %s passed: got %v, want %v (value %.17g)", ck.attr, res.Metric, res.Passed, p, res.Value)
		}
	}
}
