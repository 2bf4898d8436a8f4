package fairness

import (
	"fmt"
	"math"
)

// comparison is one measure compared across the groups of an attribute.
type comparison struct {
	m      measure
	rates  []Rate // per group: the rate compared (undefined ones left out, or 0 under UndefinedAsZero)
	used   []bool // per group: compared
	lo, hi int    // compared groups with the lowest and highest rate; the first by name on ties
	ref    int    // reference group, −1 to compare groups with each other
	reason string // why the measure cannot be compared; "" when it can
}

// compareGroups sets up the comparison of m across groups. A group of no rows
// is never compared; a group whose rate is undefined is left out, or counted
// at 0 when asZero (fairlearn's behaviour).
//
// fairlearn (through scikit-learn's confusion_matrix normalisation) counts an
// undefined TPR or FPR as 0, so a group with no favourable labels has TPR 0
// and makes the equal opportunity difference the largest TPR: a disparity
// that is not there. Vigil leaves such a group out of that comparison (its
// GroupGap has Compared false) and compares the rest; equalized odds
// compares TPRs over the groups that have favourable labels and FPRs over
// those that have unfavourable ones. Input.UndefinedAsZero restores
// fairlearn's rule, to reproduce its numbers.
//
// A Result is not computed (Computed false, Reason says why) when its
// metric needs labels and Truth is nil (never reported as 0); when fewer
// than two groups have the rate (fairlearn reports 0 and 1 for a single
// group); when a ratio would be 0/0 because no group has a favourable
// prediction (fairlearn: NaN), or because the reference group's rate is 0;
// and when the reference group has no rows or an undefined rate.
// Equalized odds' Ratio skips an undefined part (fairlearn takes Python's
// min over [TPR ratio, FPR ratio], which is NaN when the TPR ratio is NaN
// and ignores a NaN FPR ratio).
func compareGroups(groups []Group, m measure, ref int, asZero bool) comparison {
	c := comparison{m: m, rates: make([]Rate, len(groups)), used: make([]bool, len(groups)), lo: -1, hi: -1, ref: ref}
	n := 0
	for i, g := range groups {
		r := m.of(g)
		if !r.Defined() {
			if !asZero || g.Count == 0 {
				continue
			}
			r = Rate{0, 1}
		}
		c.rates[i], c.used[i] = r, true
		if i == ref {
			continue
		}
		n++
		if c.lo < 0 || r.Value() < c.rates[c.lo].Value() {
			c.lo = i
		}
		if c.hi < 0 || r.Value() > c.rates[c.hi].Value() {
			c.hi = i
		}
	}
	switch {
	case ref >= 0 && !c.used[ref]:
		c.reason = fmt.Sprintf("reference group %q has %s, so its %s is undefined", groups[ref].Name, m.undefinedBecause(), m)
	case ref >= 0 && n == 0:
		c.reason = fmt.Sprintf("no group besides the reference %q has a %s", groups[ref].Name, m)
	case ref < 0 && n < 2:
		c.reason = fmt.Sprintf("needs two groups with a %s, got %d", m, n)
	}
	if ref >= 0 && c.used[ref] {
		// Between-groups figures include the reference group, as in fairlearn.
		c.lo, c.hi = c.extremesWith(ref)
	}
	return c
}

// extremesWith widens lo and hi to include group i.
func (c comparison) extremesWith(i int) (lo, hi int) {
	lo, hi = c.lo, c.hi
	if lo < 0 || c.rates[i].Value() < c.rates[lo].Value() || (c.rates[i].Value() == c.rates[lo].Value() && i < lo) {
		lo = i
	}
	if hi < 0 || c.rates[i].Value() > c.rates[hi].Value() || (c.rates[i].Value() == c.rates[hi].Value() && i < hi) {
		hi = i
	}
	return lo, hi
}

// difference is fairlearn's between-groups difference: highest − lowest.
func (c comparison) difference() float64 { return sub(c.rates[c.hi], c.rates[c.lo]) }

// ratio is fairlearn's between-groups ratio, lowest / highest, or NaN when
// the highest rate is 0.
func (c comparison) ratio() float64 {
	if c.rates[c.hi].Num == 0 {
		return math.NaN()
	}
	return div(c.rates[c.lo], c.rates[c.hi])
}

// compares reports whether group i is compared (the reference is not).
func (c comparison) compares(i int) bool { return c.used[i] && i != c.ref }

// diffGap is group i's gap for a difference metric and the group it is
// measured against: the reference, or whichever extreme is farther.
func (c comparison) diffGap(i int) (float64, int) {
	if c.ref >= 0 {
		return math.Abs(sub(c.rates[i], c.rates[c.ref])), c.ref
	}
	up, down := sub(c.rates[c.hi], c.rates[i]), sub(c.rates[i], c.rates[c.lo])
	if down > up {
		return down, c.lo
	}
	return up, c.hi
}

// ratioBase is the group ratios are taken to: the reference or the highest.
func (c comparison) ratioBase() int {
	if c.ref >= 0 {
		return c.ref
	}
	return c.hi
}

// ratioGap is group i's rate over the base's.
func (c comparison) ratioGap(i int) (float64, int) {
	b := c.ratioBase()
	return div(c.rates[i], c.rates[b]), b
}

// ratioReason says why ratios cannot be taken, or "".
func (c comparison) ratioReason(groups []Group) string {
	b := c.ratioBase()
	switch {
	case c.rates[b].Num != 0:
		return ""
	case c.ref >= 0:
		return fmt.Sprintf("reference group %q has %s 0, so ratios to it are undefined", groups[b].Name, c.m)
	}
	return fmt.Sprintf("no group has a %s above 0, so every ratio is 0/0", c.m)
}
