package evaluation

import (
	"math"
	"slices"
)

// sortFloats sorts finite floats ascending, -0 and +0 both as +0. It is an
// LSD radix sort on order-preserving keys (16-bit digits, passes whose digit
// is the same for every key skipped), several times faster than slices.Sort
// on the million-row inputs roc_auc sorts; short inputs use slices.Sort.
func sortFloats(a []float64) {
	for i, v := range a {
		if v == 0 {
			a[i] = 0 // fold -0 into +0 so bit order equals numeric order
		}
	}
	if len(a) < 4096 {
		slices.Sort(a)
		return
	}
	keys := make([]uint64, len(a))
	for i, v := range a {
		keys[i] = floatKey(v)
	}
	tmp := make([]uint64, len(a))
	var counts [1 << radixBits]uint32
	for shift := uint(0); shift < 64; shift += radixBits {
		clear(counts[:])
		for _, k := range keys {
			counts[(k>>shift)&radixMask]++
		}
		if int(counts[(keys[0]>>shift)&radixMask]) == len(keys) {
			continue // every key has this digit: the pass would not move anything
		}
		var sum uint32
		for d, c := range counts {
			counts[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & radixMask
			tmp[counts[d]] = k
			counts[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		a[i] = keyFloat(k)
	}
}

// radixBits is the digit width: 11 bits (6 passes) keeps the bucket table
// in L1 cache, which beats 16-bit digits on the scatter.
const (
	radixBits = 11
	radixMask = 1<<radixBits - 1
)

// floatKey maps a float's bits to a uint64 that sorts in numeric order.
func floatKey(v float64) uint64 {
	u := math.Float64bits(v)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}

// keyFloat inverts floatKey.
func keyFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
