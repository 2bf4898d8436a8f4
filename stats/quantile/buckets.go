package quantile

import "iter"

// Bucket is one bucket of a sketch: the values that fall in it, counted.
type Bucket struct {
	// Order ranks buckets across every sketch of the same α: each value
	// of a bucket is below each value of a bucket of higher Order, and
	// equal values share a bucket.
	Order int64
	// Value represents the bucket's values, within α of each (0 for the
	// zero bucket).
	Value float64
	Count uint64
}

// Buckets yields the non-empty buckets in ascending order of value:
// negative values, zeros, positive values. Walking the buckets of two
// sketches with the same α in step compares their distributions at
// bucket boundaries, where both cumulative counts are exact. A sketch that
// collapsed buckets (more than MaxBuckets in one sign) yields the
// collapsed ones as one bucket.
func (s *Sketch) Buckets() iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		const zeroOrder = 0
		for i, c := range s.neg.used() {
			k := s.neg.lo + int32(i)
			// neg is keyed by −key(|v|): ascending keys, ascending values,
			// all below the zeros.
			if c > 0 && !yield(Bucket{Order: int64(k) - 1<<32, Value: -s.m.value(-k), Count: c}) {
				return
			}
		}
		if s.zero > 0 && !yield(Bucket{Order: zeroOrder, Value: 0, Count: s.zero}) {
			return
		}
		for i, c := range s.pos.used() {
			k := s.pos.lo + int32(i)
			if c > 0 && !yield(Bucket{Order: int64(k) + 1<<32, Value: s.m.value(k), Count: c}) {
				return
			}
		}
	}
}
