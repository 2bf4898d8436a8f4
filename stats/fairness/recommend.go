package fairness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxGroupsNamed is how many failing groups of one metric and attribute get
// a recommendation of their own; the rest are counted in one more line.
const maxGroupsNamed = 3

// finding is one recommendation with what orders it.
type finding struct {
	severity Severity
	miss     float64
	text     string
}

// recommend lists, most severe first, each failing group with its metric
// and comparison, then what could not be judged and why.
//
// One line per failing group and metric, most severe first, naming the
// group, the attribute, the two rates, the metric and its condition, then a
// place to look, e.g.
//
//	group 'female' of attribute 'gender' has selection rate 0.31 vs 0.52 for 'male':
//	disparate impact 0.60 < 0.8; review features that stand in for gender and the
//	decision threshold applied to 'female'
//
// Between groups a failing pair is named once, from the group with the lower
// rate; at most three groups per metric and attribute are named and the
// rest counted. Then notes: metrics not computed and why (one line asking
// for y_true when labels are missing), small groups, missing values.
func recommend(r Report, t Thresholds, smallGroup int) []string {
	var found []finding
	for _, a := range r.Attributes {
		for _, res := range a.Results {
			if res.Computed && !res.Passed {
				found = append(found, failures(res, ruleOf(res.Metric, t))...)
			}
		}
	}
	slices.SortStableFunc(found, func(a, b finding) int {
		if a.severity != b.severity {
			return int(b.severity - a.severity)
		}
		switch {
		case a.miss > b.miss:
			return -1
		case a.miss < b.miss:
			return 1
		}
		return 0
	})
	out := make([]string, 0, len(found))
	for _, f := range found {
		out = append(out, f.text)
	}
	return append(out, notes(r, smallGroup)...)
}

// failures words the failing groups of one result, the worst first.
func failures(res Result, rule rule) []finding {
	var gaps []GroupGap
	for _, g := range res.Groups {
		// Between groups, a pair of groups fails together; name the one below.
		if g.Compared && !g.Passed && (res.Reference != "" || rule.ratio || below(g)) {
			gaps = append(gaps, g)
		}
	}
	slices.SortStableFunc(gaps, func(a, b GroupGap) int {
		ma, mb := rule.miss(a.Gap), rule.miss(b.Gap)
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return 0
	})
	var out []finding
	for i, g := range gaps {
		if i == maxGroupsNamed {
			out = append(out, finding{res.Severity, 0, fmt.Sprintf("%d more groups of attribute '%s' fail %s (%s)",
				len(gaps)-i, res.Attribute, res.Metric, res.Condition)})
			break
		}
		miss := rule.miss(g.Gap)
		out = append(out, finding{severityOf(false, miss), miss, failureText(res, rule, g)})
	}
	return out
}

// failureText is, e.g., "group 'female' of attribute 'gender' has selection
// rate 0.31 vs 0.52 for 'male': disparate impact 0.60 < 0.8; review ...".
func failureText(res Result, rule rule, g GroupGap) string {
	versus := fmt.Sprintf("'%s'", g.Versus)
	if res.Reference != "" {
		versus = "reference " + versus
	}
	measure := strings.ReplaceAll(g.Measure, "_", " ")
	var verdict string
	switch {
	case !rule.ratio:
		verdict = fmt.Sprintf("%s difference %s, not below %s", label(res.Metric), figure(g.Gap, rule.max), number(rule.max))
	case math.IsInf(rule.hi, 1):
		verdict = fmt.Sprintf("%s %s < %s", label(res.Metric), figure(g.Gap, rule.lo), number(rule.lo))
	default:
		verdict = fmt.Sprintf("%s ratio %s outside [%s, %s]", label(res.Metric), figure(g.Gap, nearest(g.Gap, rule.lo, rule.hi)),
			number(rule.lo), number(rule.hi))
	}
	return fmt.Sprintf("group '%s' of attribute '%s' has %s %s vs %s for %s: %s; %s", g.Group, res.Attribute, measure,
		figure(g.Rate.Value(), g.VersusRate.Value()), figure(g.VersusRate.Value(), g.Rate.Value()), versus, verdict,
		advice(g, res.Attribute))
}

// advice suggests where to look.
func advice(g GroupGap, attribute string) string {
	if g.Measure == selectionRate.key() {
		return fmt.Sprintf("review features that stand in for %s and the decision threshold applied to '%s'", attribute, g.Group)
	}
	return fmt.Sprintf("review the model's errors on '%s': training coverage, label quality and its decision threshold", g.Group)
}

// notes explain what the audit could not judge.
func notes(r Report, smallGroup int) []string {
	var out []string
	var needLabels []string
	for k, s := range r.Metrics {
		if s.Computed {
			continue
		}
		if s.Metric.NeedsLabels() && !r.Labelled {
			needLabels = append(needLabels, string(s.Metric))
			continue
		}
		for _, a := range r.Attributes {
			if res := a.Results[k]; !res.Computed {
				out = append(out, fmt.Sprintf("%s not computed for attribute '%s': %s", s.Metric, a.Name, res.Reason))
			}
		}
	}
	if len(needLabels) > 0 {
		out = append(out, fmt.Sprintf("supply y_true (ground-truth labels) to compute %s", strings.Join(needLabels, " and ")))
	}
	for _, a := range r.Attributes {
		for _, g := range a.Groups {
			if g.Count > 0 && g.Count < int64(smallGroup) {
				out = append(out, fmt.Sprintf("group '%s' of attribute '%s' has only %s (under %d): its rates are unreliable",
					g.Name, a.Name, rows(g.Count), smallGroup))
			}
		}
		if a.Missing > 0 {
			out = append(out, fmt.Sprintf("attribute '%s' is missing for %d of %d rows (%.1f%%), which the audit left out",
				a.Name, a.Missing, r.Rows, 100*float64(a.Missing)/float64(r.Rows)))
		}
	}
	return out
}

// rows counts rows in words: "1 row", "12 rows".
func rows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// label is the metric's name in prose.
func label(m Metric) string { return strings.ReplaceAll(string(m), "_", " ") }

// nearest returns whichever bound v is closer to.
func nearest(v, lo, hi float64) float64 {
	if math.Abs(v-lo) < math.Abs(v-hi) {
		return lo
	}
	return hi
}

// figure formats v with two decimals, or more while it would read the same
// as other (so 0.7999 against 0.8 shows as 0.7999, not 0.80).
func figure(v, other float64) string {
	for d := 2; ; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if d == 6 || v == other || s != strconv.FormatFloat(other, 'f', d, 64) {
			return s
		}
	}
}

// number formats a threshold as written (0.8, 0.1).
func number(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
