package stattest

import (
	"math"
	"slices"
)

// radixMin is the length below which sortFloats uses slices.Sort.
const radixMin = 2048

// sortFloats sorts NaN-free floats ascending. Long inputs go through an LSD
// radix sort on 11-bit digits of an order-preserving integer image of the
// float bits: at most six passes over the data, about twice as fast as
// slices.Sort on a million normal values (8- and 16-bit digits measured
// the same). All six digit
// histograms are built in one read, and a pass whose digit is equal for
// every key is skipped.
func sortFloats(a []float64) {
	if len(a) < radixMin {
		slices.Sort(a)
		return
	}
	const bits, passes = 11, 6
	const size = 1 << bits
	keys := make([]uint64, 2*len(a))
	src, dst := keys[:len(a)], keys[len(a):]
	hist := new([passes][size]uint32)
	for i, v := range a {
		k := orderKey(v)
		src[i] = k
		for p := range passes {
			hist[p][(k>>(p*bits))&(size-1)]++
		}
	}
	for p := range passes {
		h := &hist[p]
		if int(h[(src[0]>>(p*bits))&(size-1)]) == len(a) {
			continue
		}
		var pos uint32
		for d, c := range h {
			h[d] = pos
			pos += c
		}
		for _, k := range src {
			d := (k >> (p * bits)) & (size - 1)
			dst[h[d]] = k
			h[d]++
		}
		src, dst = dst, src
	}
	for i, k := range src {
		a[i] = fromOrderKey(k)
	}
}

// orderKey maps a float to an integer with the same order: the sign bit
// is set on non-negative floats, and every bit of a negative one is flipped
// (so larger magnitudes sort lower).
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// fromOrderKey inverts orderKey.
func fromOrderKey(k uint64) float64 {
	return math.Float64frombits(k ^ (uint64(int64(^k)>>63) | 1<<63))
}
