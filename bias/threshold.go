package bias

import (
	"math"

	"github.com/vigilhq/vigil/stats/fairness"
)

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
//
// The request's single threshold t in (0, 1), default 0.8, is mapped onto
// every pass condition (Thresholds): demographic parity within [t, 2 − t],
// disparate impact at least t, equal opportunity and equalized odds
// differences below (1 − t)/2. At 0.8 these are exactly the spec's.
func Thresholds(t *float64) fairness.Thresholds {
	if t == nil {
		return fairness.Thresholds{}
	}
	diff := decimal((1 - *t) / 2)
	return fairness.Thresholds{ParityMin: *t, ParityMax: decimal(2 - *t), ImpactMin: *t, OpportunityMax: diff, OddsMax: diff}
}

// decimal rounds x to 12 decimals, so that a derived bound is the decimal
// number it reads as: (1 − 0.8)/2 is 0.1, not 0.09999999999999998.
func decimal(x float64) float64 { return math.Round(x*1e12) / 1e12 }

// validThreshold reports whether t can be mapped: a ratio strictly
// between 0 and 1.
func validThreshold(t float64) bool { return t > 0 && t < 1 }
