package jsonnum

import (
	"math"
	"math/bits"
)

// The range of decimal exponents pow10Table covers, as in Go's strconv.
const (
	pow10Min = -348
	pow10Max = 347
)

// pow128 is a 128-bit mantissa of a power of ten: Hi, then Lo.
type pow128 struct{ Hi, Lo uint64 }

// eiselLemire is the Eisel-Lemire conversion of man·10^exp10 (man != 0)
// to the nearest float64, as Go's strconv does it (after Nigel Tao's
// write-up, https://nigeltao.github.io/blog/2020/eisel-lemire.html). It
// reports false for the cases it cannot settle: an exponent outside the
// table, an ambiguous product, a halfway case, a subnormal or infinite
// result.
func eiselLemire(man uint64, exp10 int, neg bool) (float64, bool) {
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	pow := pow10Table[exp10-pow10Min]
	exp2 := 1 + (exp10*108853)>>15 // floor(exp10·log2(10)) + 1 for |exp10| <= 500
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const bias, mantBits = -1023, 52
	retExp2 := uint64(exp2+63-bias) - uint64(clz)
	xHi, xLo := bits.Mul64(man, pow.Hi)
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow.Lo)
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	msb := xHi >> 63
	retMan := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && retMan&3 == 1 {
		return 0, false
	}
	retMan += retMan & 1
	retMan >>= 1
	if retMan>>53 > 0 {
		retMan >>= 1
		retExp2++
	}
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	b := retExp2<<mantBits | retMan&(1<<mantBits-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
