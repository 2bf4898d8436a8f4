package fairness

import "math"

// passLine is the score of a metric exactly at its threshold: the lower
// bound of the good band, so a passing metric scores at least 0.80 and a
// failing one below it.
const passLine = 0.8

// scoreOf maps a miss (0 for no disparity, 1 at the threshold) to a metric
// score: 1 − 0.2·miss, clamped to [0, 1]. A failing metric scores below the
// pass line even at exactly a strict threshold (equal opportunity difference
// of exactly 0.1).
//
// Each computed Result has a miss: how many allowances its value spends,
// 0 for no disparity and 1 exactly at the threshold.
//
//	ratio r below 1 (parity, impact):  miss = (1 − r) / (1 − lower bound)     = (1 − r) / 0.2
//	ratio r above 1 (parity):          miss = (r − 1) / (upper bound − 1)     = (r − 1) / 0.2
//	ratio r above 1 (impact):          miss = 0
//	difference d:                      miss = d / maximum                     = d / 0.1
//
// The miss is rounded to nine decimals, so a value on a grade boundary (an
// impact of exactly 0.7: miss 1.5) grades as the table below says rather
// than one unit in the last place beyond; pass and fail are decided on the
// unrounded value. Its score is 1 − 0.2·miss, clamped to [0, 1]: a metric exactly at its
// threshold scores 0.80, where the good band starts, so a metric passes
// exactly when it scores 0.80 or more (a failing one at exactly a strict
// threshold is put just below 0.80). With the default thresholds a
// disparate impact of 0.65 scores 0.65, and an equal opportunity difference
// d scores 1 − 2d. A Summary takes each metric's lowest score over the
// attributes; overall_fairness_score (Report.Score) is the lowest score
// over the computed metrics: the worst disparity decides, so the score
// cannot hide a failing metric behind passing ones, and BiasDetected is
// true exactly when the score is below 0.80. It never falls as a
// disparity shrinks. Metrics not computed do not count; with none computed
// Report.Scored is false.
//
// Bands (BandOf), each from its lower bound inclusive:
//
//	0.90-1.00 excellent   0.80-0.89 good   0.70-0.79 fair   0.60-0.69 poor   below 0.60 critical
func scoreOf(passed bool, miss float64) float64 {
	s := rounded(math.Max(0, math.Min(1, 1-(1-passLine)*miss)))
	if !passed && s >= passLine {
		s = math.Nextafter(passLine, 0)
	}
	return s
}

// rounded rounds v to nine decimals, so that a disparity exactly on a band
// or severity boundary (an impact of 0.7: miss 1.5) lands on it rather than
// one unit in the last place beyond. Pass and fail are decided on the exact
// value, not on the rounded miss.
func rounded(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// ratioMiss is the miss of a ratio r against a band [lo, hi] around 1: the
// distance to 1 divided by the distance from 1 to the bound on r's side.
// Pass hi = +Inf for a one-sided condition.
func ratioMiss(r, lo, hi float64) float64 {
	if r <= 1 {
		return (1 - r) / (1 - lo)
	}
	if math.IsInf(hi, 1) {
		return 0
	}
	return (r - 1) / (hi - 1)
}

// differenceMiss is the miss of a difference d against its maximum.
func differenceMiss(d, max float64) float64 { return d / max }
