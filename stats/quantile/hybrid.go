package quantile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ExactLimit is how many values a Hybrid keeps as they are. Up to it, its
// quantiles are exact; beyond it, they come from a Sketch.
const ExactLimit = 256

// hybridExact is the first byte of an exact Hybrid's encoding; a Hybrid
// beyond ExactLimit encodes as its Sketch, whose first byte is
// encodingVersion.
const hybridExact = 2

// Hybrid summarises values for their quantiles: it keeps the values
// themselves while it has at most ExactLimit of them, and a Sketch of
// relative accuracy DefaultAlpha once it has more. Its quantile is the
// linear interpolation of NumPy's default (method="linear", Hyndman and
// Fan's type 7): with the n values sorted as x[0] ≤ … ≤ x[n−1],
// h = q·(n−1) and j = ⌊h⌋,
//
//	Q(q) = x[j] + (h − j)·(x[j+1] − x[j])   (x[j] when j = n−1)
//
// exactly (up to float64 rounding) while the Hybrid is exact; beyond
// ExactLimit, x[j] and x[j+1] are the Sketch's estimates, each within a
// relative α of the true value, so that for values of one sign (latencies)
// Q(q) is within a relative α of the exact interpolation.
//
// Merging keeps it exact while the parts together hold at most ExactLimit
// values; the result never depends on the order of adds and merges. The
// zero Hybrid is empty and exact. A Hybrid is not safe for concurrent
// use: Quantile and MarshalBinary sort the values in place.
//
// The latency percentiles of the stats read use Hybrid, not Sketch
// directly: it keeps up to ExactLimit (256) values as they are and turns
// into a Sketch when it outgrows them. Its quantile is one definition at
// every size, NumPy's default linear interpolation (method="linear",
// Hyndman and Fan's type 7) between the values of ranks ⌊q·(n−1)⌋ and
// ⌊q·(n−1)⌋+1: exact up to ExactLimit values, and from the Sketch's two
// estimates beyond, so within α for values of one sign. Two exact Hybrids
// whose sizes add up to at most ExactLimit merge into an exact one. An
// exact Hybrid encodes with first byte 2 (see Hybrid.MarshalBinary); one
// beyond ExactLimit as its Sketch (first byte 1), and a stored Sketch
// decodes as such a Hybrid, so rollups written before Hybrid still read.
// Sketch.Quantile keeps the lower-rank convention above (drift profiles
// use it).
//
// A Sketch is not safe for concurrent use; concurrent readers (Quantile,
// Count, MarshalBinary, ...) are fine as long as nobody writes.
type Hybrid struct {
	values    []float64 // while sketch is nil: every finite value added
	sorted    bool      // values are in ascending order
	nonFinite uint64    // while sketch is nil: NaN and ±Inf added, not kept
	sketch    *Sketch   // beyond ExactLimit
}

// Add adds v. NaN and ±Inf are counted apart, as Sketch.Add does, and
// are no part of the quantiles; −0 is added as 0.
func (h *Hybrid) Add(v float64) {
	switch {
	case h.sketch != nil:
		h.sketch.Add(v)
	case math.IsNaN(v) || math.IsInf(v, 0):
		h.nonFinite++
	case len(h.values) == ExactLimit:
		h.spill()
		h.sketch.Add(v)
	default:
		if v == 0 {
			v = 0 // +0, as the Sketch counts it
		}
		h.values = append(h.values, v)
		h.sorted = len(h.values) == 1
	}
}

// spill turns an exact Hybrid into its Sketch.
func (h *Hybrid) spill() {
	if h.sketch != nil {
		return
	}
	h.sketch = &Sketch{}
	h.sketch.ready()
	for _, v := range h.values {
		h.sketch.Add(v)
	}
	h.sketch.AddN(math.NaN(), h.nonFinite)
	h.values, h.sorted, h.nonFinite = nil, false, 0
}

// Exact reports whether the Hybrid still holds its values as they are.
func (h *Hybrid) Exact() bool { return h.sketch == nil }

// Count returns the number of values added (NaN and ±Inf excluded).
func (h *Hybrid) Count() uint64 {
	if h.sketch != nil {
		return h.sketch.Count()
	}
	return uint64(len(h.values))
}

// Merge adds every value of other to h, as if they had been added to h;
// other is unchanged, and a nil other is empty. It returns
// ErrAlphaMismatch, leaving h unchanged, when other holds a Sketch of
// another α.
func (h *Hybrid) Merge(other *Hybrid) error {
	switch {
	case other == nil:
		return nil
	case h.sketch == nil && other.sketch == nil && len(h.values)+len(other.values) <= ExactLimit:
		h.values = append(h.values, other.values...)
		h.sorted = len(other.values) == 0 && h.sorted
		h.nonFinite += other.nonFinite
		return nil
	case other.sketch != nil && other.sketch.Alpha() != DefaultAlpha:
		return fmt.Errorf("%w: %v and %v", ErrAlphaMismatch, DefaultAlpha, other.sketch.Alpha())
	}
	o := other
	if o == h {
		c := Hybrid{values: slices.Clone(h.values), nonFinite: h.nonFinite}
		if h.sketch != nil {
			c.sketch = h.sketch.clone()
		}
		o = &c
	}
	h.spill()
	if o.sketch != nil {
		return h.sketch.Merge(o.sketch)
	}
	for _, v := range o.values {
		h.sketch.Add(v)
	}
	h.sketch.AddN(math.NaN(), o.nonFinite)
	return nil
}

// Quantile returns the q-quantile as the type documentation defines it.
// It returns ErrQuantile for q outside [0, 1] and ErrEmpty when the Hybrid
// has no values.
func (h *Hybrid) Quantile(q float64) (float64, error) {
	n := h.Count()
	if err := check(q, n); err != nil {
		return 0, err
	}
	at := func(r uint64) float64 { return h.values[r] }
	if h.sketch != nil {
		at = h.sketch.atRank
	} else {
		h.sort()
	}
	return linear(q, n, at), nil
}

// linear interpolates between the values at ranks ⌊h⌋ and ⌊h⌋+1 around
// h = q·(n−1), as NumPy's method="linear" does (its _lerp: from the
// nearer end, so that the result stays between the two).
func linear(q float64, n uint64, at func(uint64) float64) float64 {
	pos := q * float64(n-1)
	j := rank(q, n)
	a := at(j)
	g := pos - float64(j)
	if g <= 0 || j+1 >= n {
		return a
	}
	b := at(j + 1)
	d := b - a
	if g >= 0.5 {
		return b - d*(1-g)
	}
	return a + d*g
}

func (h *Hybrid) sort() {
	if !h.sorted {
		slices.Sort(h.values)
		h.sorted = true
	}
}

// MarshalBinary encodes the Hybrid. Beyond ExactLimit it is its Sketch's
// encoding (first byte 1, see the package documentation), which is how
// the rollups stored every latency sketch before Hybrid existed. An exact
// Hybrid encodes as
//
//	byte     2
//	uvarint  non-finite count
//	uvarint  value count n (at most ExactLimit)
//	n × 8    the values in ascending order, IEEE-754 bits, little-endian
//
// Equal multisets of values encode to identical bytes.
func (h *Hybrid) MarshalBinary() ([]byte, error) {
	if h.sketch != nil {
		return h.sketch.MarshalBinary()
	}
	h.sort()
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+8*len(h.values))
	b = append(b, hybridExact)
	b = binary.AppendUvarint(b, h.nonFinite)
	b = binary.AppendUvarint(b, uint64(len(h.values)))
	for _, v := range h.values {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

// UnmarshalBinary replaces h with the Hybrid that MarshalBinary encoded in
// data; it also reads a bare Sketch's encoding, as stored before Hybrid
// existed, as a Hybrid beyond ExactLimit. Malformed input returns an error
// wrapping ErrCorrupt and leaves h unchanged.
func (h *Hybrid) UnmarshalBinary(data []byte) error {
	if len(data) > 0 && data[0] == encodingVersion {
		var s Sketch
		if err := s.UnmarshalBinary(data); err != nil {
			return err
		}
		*h = Hybrid{sketch: &s}
		return nil
	}
	values, nonFinite, err := decodeExact(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	*h = Hybrid{values: values, sorted: true, nonFinite: nonFinite}
	return nil
}

var errUnsorted = errors.New("values not finite, ascending and without −0")

// decodeExact reads an exact Hybrid's encoding.
func decodeExact(data []byte) ([]float64, uint64, error) {
	d := decoder{b: data}
	switch v, err := d.byte(); {
	case err != nil:
		return nil, 0, err
	case v != hybridExact:
		return nil, 0, fmt.Errorf("unknown version %d", v)
	}
	nonFinite, err := d.uvarint()
	if err != nil {
		return nil, 0, err
	}
	n, err := d.uvarint()
	switch {
	case err != nil:
		return nil, 0, err
	case n > ExactLimit:
		return nil, 0, fmt.Errorf("%d values, more than %d", n, ExactLimit)
	case uint64(len(d.b)) != 8*n:
		return nil, 0, fmt.Errorf("%d bytes for %d values", len(d.b), n)
	}
	values := make([]float64, n)
	for i := range values {
		v, _ := d.float()
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 && math.Signbit(v) || i > 0 && v < values[i-1] {
			return nil, 0, errUnsorted
		}
		values[i] = v
	}
	return values, nonFinite, nil
}
