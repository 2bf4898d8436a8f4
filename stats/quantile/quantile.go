package quantile

import "fmt"

// Quantile returns an estimate of the q-quantile: the value of 0-based rank
// ⌊q·(n−1)⌋ among the n values added (q·(n−1) evaluated in float64), within
// a relative α of it (see the package documentation). Quantile(0) and
// Quantile(1) are the exact minimum and maximum. It returns ErrQuantile for
// q outside [0, 1] and ErrEmpty when the sketch has no values.
//
// For a sketch of n values and q in [0, 1], Quantile(q) estimates the value
// of rank k = ⌊q·(n−1)⌋ (0-based) in the sorted values, where the product
// q·(n−1) is evaluated in float64 arithmetic. This is the DDSketch reference
// convention (rank = quantile·(count−1), lower bucket) and numpy's
// quantile(method="lower"). Quantile(0) returns the exact minimum and
// Quantile(1) the exact maximum.
func (s *Sketch) Quantile(q float64) (float64, error) {
	n := s.Count()
	if err := check(q, n); err != nil {
		return 0, err
	}
	return s.atRank(rank(q, n)), nil
}

// check returns ErrQuantile for q outside [0, 1] and ErrEmpty for n = 0.
func check(q float64, n uint64) error {
	if !(q >= 0 && q <= 1) {
		return fmt.Errorf("%w: %v", ErrQuantile, q)
	}
	if n == 0 {
		return ErrEmpty
	}
	return nil
}

// atRank estimates the value of 0-based rank r < Count() within a relative
// α; ranks 0 and Count()−1 are the exact minimum and maximum.
func (s *Sketch) atRank(r uint64) float64 {
	switch {
	case r == 0:
		return s.min
	case r == s.Count()-1:
		return s.max
	}
	var v float64
	switch {
	case r < s.neg.count:
		v = -s.m.value(-s.neg.keyAtRank(r))
	case r < s.neg.count+s.zero:
		v = 0 // clamped below, for magnitudes under minIndexable counted as zero
	default:
		v = s.m.value(s.pos.keyAtRank(r - s.neg.count - s.zero))
	}
	return min(max(v, s.min), s.max)
}

// rank returns ⌊q·(n−1)⌋ for q in [0, 1] and n > 0, computed as the
// DDSketch reference does, and never above n−1.
func rank(q float64, n uint64) uint64 {
	f := q * float64(n-1)
	if f >= 0x1p64 { // only when n−1 rounds up to 2^64
		return n - 1
	}
	return min(uint64(f), n-1)
}
