package quantile

// MaxBuckets bounds the number of consecutive buckets one store (positive or
// negative values) keeps; beyond it the lowest buckets are collapsed.
const MaxBuckets = 2048

// initialBuckets is the length of a store's first allocation.
const initialBuckets = 128

// store is a dense bucket store with collapsing of its lowest keys. bins[i]
// counts key offset+i. When count > 0, every nonzero bin lies in [lo, hi],
// bins lo and hi are nonzero, and hi−lo < MaxBuckets. The state is a function
// of the multiset of keys added: keys ≤ hi−MaxBuckets+1 are all counted in
// that bucket.
//
// Each store holds at most MaxBuckets (2048) consecutive buckets, so a
// sketch never holds more than 2·2048 bucket counts (16 KiB per store) and
// an exact sum of at most 72 limbs, whatever the data. When a store would need more, its lowest
// buckets are collapsed into the lowest bucket it keeps, as DDSketch's
// "collapsing lowest dense store" does: for positive values these are the
// smallest values, for negative values (whose store is keyed by −bucket)
// the most negative ones. So collapsing only ever affects the lowest values
// of each sign, and the guarantee still holds for every quantile whose value
// x satisfies
//
//	x > 0 and x > M·γ^−(MaxBuckets−1), where M is the largest positive value, or
//	x < 0 and |x| < m·γ^(MaxBuckets−1), where m is the smallest negative magnitude, or
//	x = 0.
//
// With α = 0.01, γ^2047 ≈ 6e17: positive latencies within 17 orders of
// magnitude below the maximum keep α, so for latency data collapsing in
// practice never happens, and when it does only the lowest quantiles lose
// accuracy: they are answered with the lowest kept bucket, an overestimate.
// The collapsed state is a function of the multiset of values (everything at
// or below bucket max−MaxBuckets+1 lives in that bucket), which keeps merges
// order-independent.
type store struct {
	bins   []uint64
	offset int32
	lo, hi int32
	count  uint64
}

func (s *store) add(k int32, n uint64) {
	if s.count != 0 && k >= s.lo && k <= s.hi {
		s.bins[k-s.offset] += n
		s.count += n
		return
	}
	s.addSlow(k, n)
}

func (s *store) addSlow(k int32, n uint64) {
	switch {
	case s.count == 0:
		if k < s.offset || int(k-s.offset) >= len(s.bins) {
			s.lo, s.hi = k, k
			s.relocate(k, k)
		}
		s.lo, s.hi = k, k
	case k > s.hi:
		s.setRange(max(s.lo, floorKey(k)), k)
	default: // k < s.lo
		lo := max(k, floorKey(s.hi))
		s.setRange(lo, s.hi)
		k = lo
	}
	s.bins[k-s.offset] += n
	s.count += n
}

// floorKey is the lowest key a store whose highest key is hi keeps.
func floorKey(hi int32) int32 { return hi - MaxBuckets + 1 }

// setRange makes [lo, hi] the store's key range. It requires count > 0,
// hi ≥ s.hi and hi−lo < MaxBuckets. Counts below lo are collapsed into lo.
func (s *store) setRange(lo, hi int32) {
	var folded uint64
	if lo > s.lo {
		top := min(lo-1, s.hi)
		for k := s.lo; k <= top; k++ {
			folded += s.bins[k-s.offset]
			s.bins[k-s.offset] = 0
		}
		if lo > s.hi { // everything collapsed; nothing left to move
			s.hi = lo
		}
		s.lo = lo
	}
	if lo < s.offset || int(hi-s.offset) >= len(s.bins) {
		s.relocate(lo, hi)
	}
	s.lo, s.hi = lo, hi
	s.bins[lo-s.offset] += folded
}

// relocate resizes or shifts bins so that they cover [lo, hi] and keeps the
// counts of the current range [s.lo, s.hi] (which must lie within [lo, hi]
// or be empty of counts).
func (s *store) relocate(lo, hi int32) {
	span := int(hi-lo) + 1
	size := len(s.bins)
	if size < span {
		size = max(2*size, span+span/2, initialBuckets)
		size = min(size, MaxBuckets)
	}
	off := lo - int32(size-span)/2
	nb := s.bins
	if size != len(s.bins) {
		nb = make([]uint64, size)
	}
	if s.count != 0 && len(s.bins) > 0 {
		// The live counts are in [s.lo, s.hi] ∩ the old array.
		from, to := max(s.lo, s.offset), min(s.hi, s.offset+int32(len(s.bins))-1)
		if from <= to {
			src := s.bins[from-s.offset : to-s.offset+1]
			dst := int(from - off)
			copy(nb[dst:], src) // memmove: safe when nb is s.bins
			if size == len(s.bins) {
				clear(nb[:dst])
				clear(nb[dst+len(src):])
			}
		} else if size == len(s.bins) {
			clear(nb)
		}
	} else if size == len(s.bins) {
		clear(nb)
	}
	s.bins, s.offset = nb, off
}

// merge adds o's counts to s.
func (s *store) merge(o *store) {
	if o.count == 0 {
		return
	}
	if s.count == 0 {
		s.copyFrom(o)
		return
	}
	hi := max(s.hi, o.hi)
	lo := max(min(s.lo, o.lo), floorKey(hi))
	s.setRange(lo, hi)
	from := o.lo
	if from < lo {
		var folded uint64
		for k := o.lo; k < lo && k <= o.hi; k++ {
			folded += o.bins[k-o.offset]
		}
		s.bins[lo-s.offset] += folded
		from = lo
	}
	if from <= o.hi {
		src := o.bins[from-o.offset : o.hi-o.offset+1]
		dst := s.bins[from-s.offset:]
		dst = dst[:len(src)]
		for i, c := range src {
			dst[i] += c
		}
	}
	s.count += o.count
}

// copyFrom makes s a copy of o (which has count > 0), reusing s.bins when it
// is large enough.
func (s *store) copyFrom(o *store) {
	span := int(o.hi-o.lo) + 1
	if len(s.bins) < span {
		s.bins = make([]uint64, min(max(span+span/2, initialBuckets), MaxBuckets))
	} else {
		clear(s.bins)
	}
	s.offset = o.lo - int32(len(s.bins)-span)/2
	copy(s.bins[o.lo-s.offset:], o.bins[o.lo-o.offset:o.hi-o.offset+1])
	s.lo, s.hi, s.count = o.lo, o.hi, o.count
}

// keyAtRank returns the key of the bucket that holds the value of 0-based
// rank r (r < count) in ascending key order.
func (s *store) keyAtRank(r uint64) int32 {
	var cum uint64
	for i, c := range s.bins[s.lo-s.offset : s.hi-s.offset+1] {
		cum += c
		if cum > r {
			return s.lo + int32(i)
		}
	}
	return s.hi
}

func (s *store) reset() {
	clear(s.bins)
	s.count = 0
}

// used returns the counts of [lo, hi] (nil for an empty store).
func (s *store) used() []uint64 {
	if s.count == 0 {
		return nil
	}
	return s.bins[s.lo-s.offset : s.hi-s.offset+1]
}
