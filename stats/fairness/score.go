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
