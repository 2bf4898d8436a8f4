package fairness

import (
	"math"
	"testing"
)

func TestRate(t *testing.T) {
	f := func(r Rate, defined bool, value float64, js string) {
		t.Helper()
		if got := r.Defined(); got != defined {
			t.Errorf("%v.Defined(): got %v, want %v", r, got, defined)
		}
		if got := r.Value(); got != value && !(math.IsNaN(got) && math.IsNaN(value)) {
			t.Errorf("%v.Value(): got %v, want %v", r, got, value)
		}
		b, err := r.MarshalJSON()
		if err != nil || string(b) != js {
			t.Errorf("%v.MarshalJSON(): got %s, %v, want %s", r, b, err, js)
		}
	}
	f(Rate{}, false, math.NaN(), "null")
	f(Rate{0, 4}, true, 0, "0")
	f(Rate{1, 3}, true, 1.0/3, "0.3333333333333333")
	f(Rate{5, 5}, true, 1, "1")
}

// TestExactArithmetic checks that differences and ratios of rates are
// rounded once: 0.3 − 0.2 is 0.1 (float subtraction gives
// 0.09999999999999998), so thresholds hold exactly.
func TestExactArithmetic(t *testing.T) {
	f := func(name string, got, want float64) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %.17g, want %.17g", name, got, want)
		}
	}
	f("0.3 − 0.2", sub(Rate{3, 10}, Rate{2, 10}), 0.1)
	f("0.7 − 0.6", sub(Rate{7, 10}, Rate{6, 10}), 0.1)
	f("1/3 − 1/6", sub(Rate{1, 3}, Rate{1, 6}), 1.0/6)
	f("0.4 / 0.5", div(Rate{4, 10}, Rate{5, 10}), 0.8)
	f("0.28 / 0.35", div(Rate{28, 100}, Rate{35, 100}), 0.8)
	f("0 / 0.5", div(Rate{0, 10}, Rate{5, 10}), 0)
	// Products past 2^53 fall back to the rounded rates.
	big := int64(1) << 40
	f("large sub", sub(Rate{big / 2, big}, Rate{big / 4, big}), 0.25)
	f("large div", div(Rate{big / 2, big}, Rate{big / 4, big}), 2)
	if got := div(Rate{1, 2}, Rate{0, 2}); !math.IsInf(got, 1) {
		t.Errorf("0.5 / 0: got %v, want +Inf", got)
	}
}
