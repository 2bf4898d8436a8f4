package fairness

import (
	"fmt"
	"math"
	"strconv"
)

// rule is how one metric is computed and judged.
type rule struct {
	metric   Metric
	measures []measure
	ratio    bool    // the headline is a ratio of rates (else a difference)
	lo, hi   float64 // ratio band; hi is +Inf for a one-sided condition
	max      float64 // a difference must stay below max
}

// ruleOf returns the rule of m under resolved thresholds t.
func ruleOf(m Metric, t Thresholds) rule {
	switch m {
	case DemographicParity:
		return rule{metric: m, measures: []measure{selectionRate}, ratio: true, lo: t.ParityMin, hi: t.ParityMax}
	case EqualOpportunity:
		return rule{metric: m, measures: []measure{truePositiveRate}, max: t.OpportunityMax}
	case EqualizedOdds:
		return rule{metric: m, measures: []measure{truePositiveRate, falsePositiveRate}, max: t.OddsMax}
	}
	return rule{metric: m, measures: []measure{selectionRate}, ratio: true, lo: t.ImpactMin, hi: math.Inf(1)}
}

// threshold is the number the spec shows for the condition.
func (r rule) threshold() float64 {
	if r.ratio {
		return r.lo
	}
	return r.max
}

// condition states the pass condition.
func (r rule) condition() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case !r.ratio:
		return "difference below " + f(r.max)
	case math.IsInf(r.hi, 1):
		return "ratio at least " + f(r.lo)
	}
	return fmt.Sprintf("ratio within [%s, %s]", f(r.lo), f(r.hi))
}

// passes reports whether a headline or gap value meets the condition.
func (r rule) passes(v float64) bool {
	if r.ratio {
		return v >= r.lo && v <= r.hi
	}
	return v < r.max
}

// distance is how many allowances v spends (see score.go), unrounded: it
// orders gaps.
func (r rule) distance(v float64) float64 {
	if r.ratio {
		return ratioMiss(v, r.lo, r.hi)
	}
	return differenceMiss(v, r.max)
}

// miss is distance rounded for grading.
func (r rule) miss(v float64) float64 { return rounded(r.distance(v)) }

// attributeData is what evaluate needs of one attribute.
type attributeData struct {
	name     string
	groups   []Group
	ref      int // −1 for none
	labelled bool
	asZero   bool
}

// evaluate computes one metric over one attribute.
func evaluate(r rule, a attributeData) Result {
	res := Result{Metric: r.metric, Attribute: a.name, Threshold: r.threshold(), Condition: r.condition()}
	if a.ref >= 0 {
		res.Reference = a.groups[a.ref].Name
	}
	comps := make([]comparison, len(r.measures))
	for i, m := range r.measures {
		comps[i] = compareGroups(a.groups, m, a.ref, a.asZero)
	}
	res.Groups = gapsOf(r, a.groups, comps)
	if r.metric.NeedsLabels() && !a.labelled {
		res.Reason = "needs y_true: no labels were supplied"
		return res
	}
	for _, c := range comps {
		if c.reason != "" {
			res.Reason = c.reason
			return res
		}
	}
	res.Difference, res.Ratio = betweenGroups(comps)
	if r.ratio {
		if res.Reason = comps[0].ratioReason(a.groups); res.Reason != "" {
			return res
		}
	}
	res.Computed = true
	w := headline(r, res.Groups)
	res.Value, res.Worst, res.Versus = res.Groups[w].Gap, res.Groups[w].Group, res.Groups[w].Versus
	res.Passed = r.passes(res.Value)
	res.Miss = r.miss(res.Value)
	res.Score = scoreOf(res.Passed, res.Miss)
	res.Severity = severityOf(res.Passed, res.Miss)
	return res
}

// betweenGroups returns fairlearn's difference and ratio: for several
// measures (equalized odds) the largest difference and the smallest ratio
// that is defined.
func betweenGroups(comps []comparison) (*float64, *float64) {
	d := math.Inf(-1)
	var ratio *float64
	for _, c := range comps {
		d = max(d, c.difference())
		if q := c.ratio(); !math.IsNaN(q) && (ratio == nil || q < *ratio) {
			ratio = &q
		}
	}
	return &d, ratio
}

// gapsOf returns each group's gap: for several measures, the larger.
func gapsOf(r rule, groups []Group, comps []comparison) []GroupGap {
	out := make([]GroupGap, len(groups))
	for i, g := range groups {
		out[i] = GroupGap{Group: g.Name, Measure: comps[0].m.key(), Rate: comps[0].m.of(g)}
		for _, c := range comps {
			if c.reason != "" || !c.compares(i) || (r.ratio && c.ratioReason(groups) != "") {
				continue
			}
			gap, v := c.diffGap(i)
			if r.ratio {
				gap, v = c.ratioGap(i)
			}
			if out[i].Compared && gap <= out[i].Gap {
				continue
			}
			out[i] = GroupGap{Group: g.Name, Measure: c.m.key(), Rate: c.m.of(g), Compared: true, Gap: gap,
				Versus: groups[v].Name, VersusRate: c.m.of(groups[v]), Passed: r.passes(gap)}
		}
	}
	return out
}

// headline picks the group whose gap is the metric's value: the one that
// spends the most allowances (the largest difference; the ratio farthest
// from 1 for its side's bound). On a tie the smaller ratio wins (so
// disparate impact reports the smallest ratio even when every ratio is
// above 1), then the group below its comparison, then the first by name.
func headline(r rule, gaps []GroupGap) int {
	best := -1
	worse := func(a, b GroupGap) bool {
		if ka, kb := r.distance(a.Gap), r.distance(b.Gap); ka != kb {
			return ka > kb
		}
		if r.ratio && a.Gap != b.Gap {
			return a.Gap < b.Gap
		}
		return below(a) && !below(b)
	}
	for i, g := range gaps {
		if g.Compared && (best < 0 || worse(g, gaps[best])) {
			best = i
		}
	}
	return best
}

// below reports whether the group's rate is under its comparison's.
func below(g GroupGap) bool { return g.Rate.Value() < g.VersusRate.Value() }
