package jsonnum

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// maxDigits is the most significant digits a uint64 always holds.
const maxDigits = 19

// exactPow10 are the powers of ten that float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Read reads the JSON number at the start of b,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns its value
// and the length of its text; ok is false when b does not start with one.
// The value is the one strconv.ParseFloat(text, 64) returns, bit for bit:
// ±Inf for a number beyond float64's range (where ParseFloat also reports
// strconv.ErrRange), -0 for -0. What follows the number is not looked at.
func Read(b []byte) (v float64, n int, ok bool) {
	i, neg := 0, false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	var man uint64
	nd, exp10 := 0, 0 // significant digits seen, and the power of ten to apply to man
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			man = man*10 + uint64(b[i]-'0')
			nd++
		}
	default:
		return 0, 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		if man == 0 {
			for i < len(b) && b[i] == '0' {
				i++ // leading zeros are not significant
			}
		}
		sig := i
		for ; i+8 <= len(b); i += 8 {
			x := binary.LittleEndian.Uint64((*[8]byte)(b[i : i+8])[:])
			if !eightDigits(x) {
				break
			}
			man = man*100_000_000 + eightDigitsValue(x)
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			man = man*10 + uint64(b[i]-'0')
		}
		if i == start {
			return 0, 0, false
		}
		nd += i - sig
		exp10 = start - i
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		var e int
		var ok bool
		if i, e, ok = exponent(b, i+1); !ok {
			return 0, 0, false
		}
		exp10 += e
	}
	switch {
	case nd > maxDigits:
		return parse(b[:i]), i, true
	case man < 1<<53 && exp10 >= -22 && exp10 <= 22:
		return exact(man, exp10, neg), i, true
	}
	if v, ok := convert(man, exp10, neg); ok {
		return v, i, true
	}
	return parse(b[:i]), i, true
}

// exact is man·10^exp10 for man < 2^53 and |exp10| <= 22, where both
// factors are exact float64s, so one correctly rounded multiplication or
// division gives the nearest float64 (and -0 for a negative zero).
func exact(man uint64, exp10 int, neg bool) float64 {
	f := float64(man)
	if exp10 >= 0 {
		f *= exactPow10[exp10]
	} else {
		f /= exactPow10[-exp10]
	}
	if neg {
		f = -f
	}
	return f
}

// eightDigits reports whether the 8 bytes of x (little-endian) are all
// ASCII digits.
func eightDigits(x uint64) bool {
	return x&(x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030
}

// zeros is eight ASCII zeros, as a little-endian uint64.
const zeros = 0x3030303030303030

// leadingDigits is how many of the 8 bytes of x (little-endian, so the
// first in the lowest byte), from the first on, are ASCII digits, for an x
// that does not hold 8 of them. A byte below '0' borrows in x-zeros and
// one above '9' carries in x+0x46...: either sets its high bit, and only
// bytes after the first that is no digit can be disturbed by the borrow
// or carry, which the count does not look at.
func leadingDigits(x uint64) int {
	other := ((x + 0x4646464646464646) | (x - zeros)) & 0x8080808080808080
	return bits.TrailingZeros64(other) / 8
}

// eightDigitsValue is the number the 8 ASCII digits in x (little-endian,
// so the first digit in the lowest byte) write, in three multiplications
// that combine pairs, then fours, then the two halves.
func eightDigitsValue(x uint64) uint64 {
	x -= 0x3030303030303030
	x = x*10 + x>>8
	return ((x&0x000000FF000000FF)*(100+1000000<<32) + (x>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
}

// exponent reads [+-]?[0-9]+ at b[i] and returns the index after it and
// its value, saturated far beyond any float64 exponent.
func exponent(b []byte, i int) (int, int, bool) {
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start, e := i, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if e < 100_000 {
			e = e*10 + int(b[i]-'0')
		}
	}
	if i == start {
		return 0, 0, false
	}
	if neg {
		e = -e
	}
	return i, e, true
}

// convert turns man·10^exp10, beyond exact's reach, into the nearest
// float64 without strconv, and reports false when it cannot be sure of
// that float.
func convert(man uint64, exp10 int, neg bool) (float64, bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	return eiselLemire(man, exp10, neg)
}

// parse is strconv.ParseFloat on text already checked to be a JSON number,
// so its only error is ErrRange, with ±Inf or 0 as the value to keep.
func parse(text []byte) float64 {
	v, _ := strconv.ParseFloat(unsafe.String(&text[0], len(text)), 64)
	return v
}
