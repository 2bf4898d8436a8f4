package quantile

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultAlpha is the relative accuracy the processors use: quantiles are
// within 1% of the exact value.
const DefaultAlpha = 0.01

// MinAlpha and MaxAlpha bound the relative accuracy New accepts.
const (
	MinAlpha = 1e-6
	MaxAlpha = 0.5
)

var (
	// ErrEmpty is returned by Quantile on a sketch without values.
	ErrEmpty = errors.New("quantile: empty sketch")
	// ErrQuantile is returned by Quantile for q outside [0, 1] (or NaN).
	ErrQuantile = errors.New("quantile: q outside [0, 1]")
	// ErrAlpha is returned by New for an α outside [MinAlpha, MaxAlpha].
	ErrAlpha = errors.New("quantile: alpha outside [1e-6, 0.5]")
	// ErrAlphaMismatch is returned by Merge when the sketches' α differ.
	ErrAlphaMismatch = errors.New("quantile: merging sketches with different alpha")
	// ErrCorrupt is wrapped by UnmarshalBinary's errors for malformed input.
	ErrCorrupt = errors.New("quantile: corrupt sketch encoding")
)

// Sketch is a DDSketch of float64 values with relative accuracy α; see the
// package documentation for the guarantee, the bucket bound and the rank
// convention. The zero Sketch is an empty sketch with DefaultAlpha.
//
// A Sketch is a DDSketch (Masson, Rim, Lee: "DDSketch: a fast and
// fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019)
// with a logarithmic index mapping. A value v > 0 goes to bucket
// k = ⌈log_γ v⌉ with γ = (1+α)/(1−α), so bucket k holds (γ^(k−1), γ^k] and
// is represented by 2γ^k/(1+γ), which is within a relative α of every value
// in the bucket. Positive values are counted in one dense store (a slice of
// counts with an offset), negative values in a second one keyed by the
// negated bucket of |v|, and zeros (and magnitudes below ~2.2e-308, see
// below) in a separate zero count. Count, sum, minimum and maximum are
// tracked exactly; the sum is kept as an exact fixed-point integer, so it
// does not depend on the order of additions or merges.
//
// The sketch uses no randomness and every field is a function of the
// multiset of values added, so merging sketches in any order, or adding the
// values in any order, yields the identical sketch (identical MarshalBinary
// bytes).
type Sketch struct {
	m         mapping
	pos, neg  store // neg is keyed by −key(|v|), so both stores ascend with v
	zero      uint64
	nonFinite uint64
	min, max  float64 // +Inf/−Inf while Count() == 0
	sum       exactSum
}

// New returns an empty sketch with relative accuracy alpha (DefaultAlpha is
// 0.01), or ErrAlpha when alpha is outside [MinAlpha, MaxAlpha].
//
// Let x be the value of rank k. If no collapsing (see below) affected x's
// bucket, Quantile returns q̂ with |q̂ − x| ≤ α·|x|. Zeros are returned
// exactly. The mapping is built for α − 1e-11, so that floating-point
// rounding cannot push a result past α: the logarithm (a table-based
// routine, absolute error below 3e-13) and math.Exp for the representative
// together err by about 1e-12 relative at most. Results are also clamped to
// [Min, Max], which can only move them closer to x. Nonzero magnitudes below
// 2.2250738585072014e-308·γ (the reference implementation's min_possible)
// are counted as zero: for them the error is absolute, below 2.3e-308.
func New(alpha float64) (*Sketch, error) {
	if !(alpha >= MinAlpha && alpha <= MaxAlpha) {
		return nil, fmt.Errorf("%w: %v", ErrAlpha, alpha)
	}
	s := &Sketch{}
	s.init(alpha)
	return s, nil
}

func (s *Sketch) init(alpha float64) {
	s.m = newMapping(alpha)
	s.min, s.max = math.Inf(1), math.Inf(-1)
}

func (s *Sketch) ready() {
	if s.m.multiplier == 0 {
		s.init(DefaultAlpha)
	}
}

// Alpha returns the sketch's relative accuracy.
func (s *Sketch) Alpha() float64 {
	if s.m.multiplier == 0 {
		return DefaultAlpha
	}
	return s.m.alpha
}

// Add adds v. NaN and ±Inf are not added to the distribution; they are
// counted in NonFinite. −0 is added as 0.
func (s *Sketch) Add(v float64) {
	if v >= s.m.minIndexable && v <= math.MaxFloat64 && s.m.multiplier != 0 {
		s.pos.add(s.m.key(v), 1)
		s.sum.add(v)
		if v < s.min {
			s.min = v
		}
		if v > s.max {
			s.max = v
		}
		return
	}
	s.AddN(v, 1)
}

// AddN adds v n times, as n calls of Add(v) would, in constant time. The
// total count of a sketch (and of merges) must stay below 2^64.
func (s *Sketch) AddN(v float64, n uint64) {
	s.ready()
	if n == 0 {
		return
	}
	switch {
	case v >= s.m.minIndexable && v <= math.MaxFloat64:
		s.pos.add(s.m.key(v), n)
	case v <= -s.m.minIndexable && v >= -math.MaxFloat64:
		s.neg.add(-s.m.key(-v), n)
	case v == 0:
		v = 0 // +0, so that Min and Max do not depend on the order of ±0
		s.zero += n
	case math.IsNaN(v) || math.IsInf(v, 0):
		s.nonFinite += n
		return
	default: // a magnitude below minIndexable
		s.zero += n
	}
	switch {
	case v == 0:
	case n == 1:
		s.sum.add(v)
	default:
		s.sum.addN(v, n)
	}
	s.min = min(s.min, v)
	s.max = max(s.max, v)
}

// Merge adds every value of other to s, as if they had been added to s;
// other is unchanged, and a nil other is empty. The result does not depend
// on the order of merges. It returns ErrAlphaMismatch, leaving s unchanged,
// when the sketches' α differ.
func (s *Sketch) Merge(other *Sketch) error {
	s.ready()
	if other == nil {
		return nil
	}
	if s.Alpha() != other.Alpha() {
		return fmt.Errorf("%w: %v and %v", ErrAlphaMismatch, s.Alpha(), other.Alpha())
	}
	if other.Count() == 0 {
		s.nonFinite += other.nonFinite
		return nil
	}
	if other == s {
		c := s.clone()
		other = c
	}
	s.pos.merge(&other.pos)
	s.neg.merge(&other.neg)
	s.zero += other.zero
	s.nonFinite += other.nonFinite
	s.sum.merge(&other.sum)
	s.min = min(s.min, other.min)
	s.max = max(s.max, other.max)
	return nil
}

func (s *Sketch) clone() *Sketch {
	c := *s
	c.pos.bins = slices.Clone(s.pos.bins)
	c.neg.bins = slices.Clone(s.neg.bins)
	c.sum.limbs = slices.Clone(s.sum.limbs)
	return &c
}

// Count returns the number of values added (NaN and ±Inf excluded).
func (s *Sketch) Count() uint64 { return s.pos.count + s.neg.count + s.zero }

// NonFinite returns the number of NaN and ±Inf values passed to Add and
// AddN, which are not part of the distribution.
//
// NaN, +Inf and −Inf are not part of the distribution: Add counts them in
// NonFinite and leaves Count, Sum, Min, Max and the quantiles unchanged.
func (s *Sketch) NonFinite() uint64 { return s.nonFinite }

// Sum returns the sum of the values added, exact up to one final rounding to
// the nearest float64 (±Inf if it exceeds the float64 range); 0 when empty.
func (s *Sketch) Sum() float64 { return s.sum.float() }

// Min returns the smallest value added, exactly; NaN when Count() is 0.
func (s *Sketch) Min() float64 {
	if s.Count() == 0 {
		return math.NaN()
	}
	return s.min
}

// Max returns the largest value added, exactly; NaN when Count() is 0.
func (s *Sketch) Max() float64 {
	if s.Count() == 0 {
		return math.NaN()
	}
	return s.max
}

// Reset empties the sketch, keeping its α and its allocated buckets.
func (s *Sketch) Reset() {
	s.ready()
	s.pos.reset()
	s.neg.reset()
	s.zero, s.nonFinite = 0, 0
	s.min, s.max = math.Inf(1), math.Inf(-1)
	s.sum.reset()
}
