package jsonnum

import (
	"encoding/binary"
	"math"
)

// exactPow10Int are the powers of ten below 10^9.
var exactPow10Int = [...]uint64{1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000}

// ReadRun reads the run of array elements at b[i]: each a finite number
// followed by a comma and any JSON whitespace, appending their values
// (Read's) to dst. It stops at the first element that is not a finite
// number followed by a comma (an array's last element, or anything Read
// refuses or reads as ±Inf) and returns dst and that element's index.
//
// Numbers of at most 7 integer and 7 fraction digits without an exponent
// (a float column rounded to a few decimals, as Python's json module
// writes it) are read by readShort, 8 bytes at a time without a branch
// per digit; any other goes through Read (and so do the shortPause
// elements after it, see there).
func ReadRun(dst []float64, b []byte, i int) ([]float64, int) {
	skip := 0 // elements left to Read after readShort gave one up
	for {
		var v float64
		var next int
		ok := false
		if skip > 0 {
			skip--
		} else if v, next, ok = readShort(b, i); !ok {
			skip = shortPause
		}
		if !ok {
			var size int
			if v, size, ok = Read(b[i:]); !ok || math.IsInf(v, 0) {
				return dst, i
			}
			if next = i + size; next >= len(b) || b[next] != ',' {
				return dst, i
			}
			next++
		}
		dst = append(dst, v)
		for i = next; i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'); i++ {
		}
	}
}

// shortPause is how many elements ReadRun gives Read alone after readShort
// gives one up: a column is mostly of one form, and one of long numbers
// (the shortest text of most float64s, 17 digits) would otherwise cost
// readShort's try on every element.
const shortPause = 64

// readShort is Read for a number at b[i] of the form
// -?(0|[1-9][0-9]{0,6})(\.[0-9]{1,7})? followed by a comma, with 24 bytes
// of b from b[i] on: at most 14 digits, so that they fit in 53 bits and
// the value is Read's exact division by a power of ten. It returns the
// value and the index after the comma and after one space if one follows,
// or false for anything else, for Read to take: a fraction of 8 digits
// or more (the shortest text of most float64s) is given up at its first
// 8, before any work on them.
func readShort(b []byte, i int) (float64, int, bool) {
	if i+24 > len(b) {
		return 0, 0, false
	}
	w := b[i : i+24 : i+24]
	neg := (uint64(w[0]^'-') - 1) >> 63 // 1 for '-' (its difference from '-' underflows), else 0
	x := binary.LittleEndian.Uint64(w[neg : neg+8])
	n := leadingDigits(x)
	if n == 0 || n == 8 || n > 1 && x&0xff == '0' {
		return 0, 0, false
	}
	end := int(neg) + n
	frac := 0
	var y uint64
	if w[end] == '.' {
		if y = binary.LittleEndian.Uint64(w[end+1 : end+9]); eightDigits(y) {
			return 0, 0, false
		}
		if frac = leadingDigits(y); frac == 0 {
			return 0, 0, false
		}
		end += 1 + frac
	}
	man := eightDigitsValue(x<<(64-8*n) | zeros>>(8*n))
	if frac > 0 {
		man = man*exactPow10Int[frac] + eightDigitsValue(y<<(64-8*frac)|zeros>>(8*frac))
	}
	if w[end] != ',' {
		return 0, 0, false
	}
	if end++; w[end] == ' ' {
		end++
	}
	f := float64(man) / exactPow10[frac]
	return math.Float64frombits(math.Float64bits(f) | neg<<63), i + end, true
}
