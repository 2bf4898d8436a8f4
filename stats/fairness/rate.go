package fairness

import (
	"math"
	"math/bits"
	"strconv"
)

// Rate is a proportion of rows, Num out of Den. It keeps the counts so that
// differences and ratios of two rates are computed from integers with one
// rounding, which makes the pass conditions exact at their thresholds. A Rate
// with Den 0 is undefined (the true positive rate of a group with no positive
// labels); the zero Rate is undefined.
type Rate struct {
	// Num is the number of rows counted in the numerator.
	Num int64
	// Den is the number of rows the proportion is taken over.
	Den int64
}

// Defined reports whether the rate has rows to be taken over.
func (r Rate) Defined() bool { return r.Den > 0 }

// Value is Num/Den, or NaN when the rate is undefined.
func (r Rate) Value() float64 {
	if r.Den <= 0 {
		return math.NaN()
	}
	return float64(r.Num) / float64(r.Den)
}

// MarshalJSON writes the value as a JSON number, or null when undefined.
func (r Rate) MarshalJSON() ([]byte, error) {
	if !r.Defined() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, r.Value(), 'g', -1, 64), nil
}

// exactLimit bounds the integers that float64 holds exactly.
const exactLimit = 1 << 53

// product returns a·b as a float64 and whether it is exact.
func product(a, b int64) (float64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return float64(lo), hi == 0 && lo < exactLimit
}

// sub returns a − b of two defined rates: (a.Num·b.Den − b.Num·a.Den) /
// (a.Den·b.Den), rounded once while the products stay below 2^53 (every
// audit of fewer than 94 million rows), else from the two rounded values.
func sub(a, b Rate) float64 {
	x, ok1 := product(a.Num, b.Den)
	y, ok2 := product(b.Num, a.Den)
	d, ok3 := product(a.Den, b.Den)
	if ok1 && ok2 && ok3 {
		return (x - y) / d
	}
	return a.Value() - b.Value()
}

// div returns a / b of two defined rates, (a.Num·b.Den) / (a.Den·b.Num),
// with the same rounding as sub. It is +Inf or NaN when b is 0.
func div(a, b Rate) float64 {
	x, ok1 := product(a.Num, b.Den)
	y, ok2 := product(a.Den, b.Num)
	if ok1 && ok2 {
		return x / y
	}
	return a.Value() / b.Value()
}
