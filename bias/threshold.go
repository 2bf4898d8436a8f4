package bias

import "github.com/vigilhq/vigil/processors/fairness"

// DefaultThreshold is the request's threshold when it sends none: it maps
// onto exactly the spec's pass conditions.
const DefaultThreshold = 0.8

// Thresholds maps the request's single threshold t, a ratio in (0, 1),
// onto every pass condition:
//
//	demographic_parity  ratio within [t, 2 − t]     (0.8: [0.8, 1.2])
//	disparate_impact    ratio at least t            (0.8: 0.8)
//	equal_opportunity   difference below (1 − t)/2  (0.8: 0.1)
//	equalized_odds      difference below (1 − t)/2  (0.8: 0.1)
//
// So t is the four-fifths rule's fraction, and a stricter t (closer to 1)
// tightens every metric together. Nil keeps the defaults, which are t = 0.8.
func Thresholds(t *float64) fairness.Thresholds {
	if t == nil {
		return fairness.Thresholds{}
	}
	diff := (1 - *t) / 2
	return fairness.Thresholds{ParityMin: *t, ParityMax: 2 - *t, ImpactMin: *t, OpportunityMax: diff, OddsMax: diff}
}

// validThreshold reports whether t can be mapped: a ratio strictly
// between 0 and 1.
func validThreshold(t float64) bool { return t > 0 && t < 1 }
