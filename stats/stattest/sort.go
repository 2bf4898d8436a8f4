package stattest

import (
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// radixMin is the length below which sortFloats uses slices.Sort.
const radixMin = 4096

// bucketBits is the width of the radix digit sortKeys partitions on, and
// subBits the widest second digit each bucket is then counted on.
const (
	bucketBits = 8
	subBits    = 12
)

// smallSort is the length up to which a sub-bucket is insertion sorted.
const smallSort = 24

// sortFloats sorts NaN-free floats ascending, in place. Long inputs are
// turned in place into order-preserving integer keys and sorted by
// sortKeys. An LSD radix sort was tried first: as fast on random data,
// but regular inputs (a low-discrepancy sequence, for one) made its six
// scatter passes three times slower through cache-set conflicts. Input
// that is already sorted is detected in one pass and left alone.
func sortFloats(a []float64) {
	if len(a) < radixMin {
		slices.Sort(a)
		return
	}
	sorted := true
	for i := 1; i < len(a) && sorted; i++ {
		sorted = a[i] >= a[i-1]
	}
	if sorted {
		return
	}
	// A float64 and its key are both 8 bytes: the keys take a's memory,
	// and each sorted bucket is turned back into floats while in cache.
	x := unsafe.Slice((*uint64)(unsafe.Pointer(&a[0])), len(a))
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for i, v := range a {
		k := orderKey(v)
		x[i], lo, hi = k, min(lo, k), max(hi, k)
	}
	sortKeys(x, make([]uint64, len(a)), lo, hi, true)
}

// sortKeys sorts x in place, using scratch (as long as x); lo and hi are
// the least and greatest key. It partitions x into scratch on the 8
// highest bits in which the keys differ (so the digit adapts to the data's
// range; a wider one was no faster, its 4096 write positions missing the
// cache and TLB), then sorts each of the 256 buckets back into x (see
// sortBucket), turning each back into float bits when decode is set.
func sortKeys(x, scratch []uint64, lo, hi uint64, decode bool) {
	if lo == hi {
		if decode {
			decodeKeys(x)
		}
		return
	}
	shift := max(0, 64-bits.LeadingZeros64(lo^hi)-bucketBits)
	const size = 1 << bucketBits
	var start [size + 1]int
	for _, k := range x {
		start[(k>>shift)&(size-1)+1]++
	}
	for d := 1; d <= size; d++ {
		start[d] += start[d-1]
	}
	next := start
	for _, k := range x {
		d := (k >> shift) & (size - 1)
		scratch[next[d]] = k
		next[d]++
	}
	for d := range size {
		sortBucket(scratch[start[d]:start[d+1]], x[start[d]:start[d+1]], shift)
		if decode {
			decodeKeys(x[start[d]:start[d+1]])
		}
	}
}

// decodeKeys turns sorted keys back into the bits of their floats, in
// place.
func decodeKeys(x []uint64) {
	for i, k := range x {
		x[i] = fromOrderBits(k)
	}
}

// sortBucket writes src, keys that agree on every bit from shift up,
// sorted into dst. A bucket still large (from skewed data) goes through
// sortKeys again; any other is counted on the bits just below shift, about
// one sub-bucket per two keys (it is small enough to stay in cache), and
// finished by insertion sort, which moves keys only within their
// sub-bucket; a sub-bucket that many keys share goes to slices.Sort.
func sortBucket(src, dst []uint64, shift int) {
	switch {
	case len(src) > radixMin*16:
		lo, hi := uint64(math.MaxUint64), uint64(0)
		for _, k := range src {
			lo, hi = min(lo, k), max(hi, k)
		}
		sortKeys(src, dst, lo, hi, false)
		copy(dst, src)
		return
	case len(src) <= smallSort:
		copy(dst, src)
		insertionSort(dst)
		return
	}
	width := min(subBits, bits.Len(uint(len(src)))-1)
	sub := max(0, shift-width)
	mask := uint64(1)<<width - 1
	var start [1<<subBits + 1]int32
	for _, k := range src {
		start[(k>>sub)&mask+1]++
	}
	most := int32(0)
	for d := 1; d <= 1<<width; d++ {
		most = max(most, start[d])
		start[d] += start[d-1]
	}
	next := start
	for _, k := range src {
		d := (k >> sub) & mask
		dst[next[d]] = k
		next[d]++
	}
	if most <= smallSort {
		insertionSort(dst)
		return
	}
	for d := range 1 << width {
		if b := dst[start[d]:start[d+1]]; len(b) > 1 {
			slices.Sort(b)
		}
	}
}

// insertionSort sorts a short x in place.
func insertionSort(x []uint64) {
	for i := 1; i < len(x); i++ {
		k, j := x[i], i
		for ; j > 0 && x[j-1] > k; j-- {
			x[j] = x[j-1]
		}
		x[j] = k
	}
}

// orderKey maps a float to an integer with the same order: the sign bit
// is set on non-negative floats, and every bit of a negative one is flipped
// (so larger magnitudes sort lower).
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// fromOrderBits inverts orderKey, giving the bits of the float whose key
// is k.
func fromOrderBits(k uint64) uint64 {
	return k ^ (uint64(int64(^k)>>63) | 1<<63)
}
