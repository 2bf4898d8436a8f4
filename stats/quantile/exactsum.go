package quantile

import (
	"math"
	"math/big"
	"math/bits"
)

// exactSum is the exact sum of float64 values as a fixed-point integer in
// units of 2^−1074 (the smallest subnormal), so every finite float64 and
// every sum of them is an integer in these units. The integer is
// Σ limbs[i]·2^(32·(base+i)); each limb carries 32 bits of payload in an
// int64, so additions never propagate carries: normalize does that every
// normalizeEvery additions (and before merging and encoding). Addition is
// thus exact and associative, and the sum is independent of order.
type exactSum struct {
	limbs   []int64
	base    int
	pending int // additions since the last normalization
}

// Each addition adds less than 2^32 to a limb; normalized limbs are below
// 2^32 in magnitude, so limbs stay below 2^(32+24+1) in magnitude.
const normalizeEvery = 1 << 24

const limbMask = 1<<32 - 1

// maxLimbs bounds the limb positions an encoded sum may use: 2^64 values of
// magnitude below 2^1024 sum to less than 2^(1024+64+1074) units.
const maxLimbs = 72

// decompose returns v's magnitude as mant·2^(pos−1074) units: the unit bit
// position pos and the integer mantissa (53 bits).
func decompose(v float64) (mant uint64, pos int) {
	b := math.Float64bits(v)
	exp := int(b>>52) & 0x7ff
	mant = b & (1<<52 - 1)
	if exp == 0 {
		exp = 1
	} else {
		mant |= 1 << 52
	}
	return mant, exp - 1
}

// add adds a finite v.
func (e *exactSum) add(v float64) {
	mant, pos := decompose(v)
	j, sh := pos>>5-e.base, uint(pos&31)
	if j < 0 || j+3 > len(e.limbs) {
		e.addChunks(pos>>5, v < 0, mant<<sh&limbMask, mant<<sh>>32, mant>>(64-sh), 0, 0)
		return
	}
	lo, hi := mant<<sh, mant>>(64-sh) // hi is 0 when sh == 0
	l := e.limbs[j : j+3 : j+3]
	if v < 0 {
		l[0] -= int64(lo & limbMask)
		l[1] -= int64(lo >> 32)
		l[2] -= int64(hi)
	} else {
		l[0] += int64(lo & limbMask)
		l[1] += int64(lo >> 32)
		l[2] += int64(hi)
	}
	e.pending++
	if e.pending >= normalizeEvery {
		e.normalize()
	}
}

// addN adds n·v for a finite v.
func (e *exactSum) addN(v float64, n uint64) {
	if v == 0 || n == 0 {
		return
	}
	mant, pos := decompose(v)
	j, sh := pos>>5, uint(pos&31)
	ph, pl := bits.Mul64(mant, n) // < 2^117
	lo := pl << sh
	mid := ph<<sh | pl>>(64-sh)
	top := ph >> (64 - sh)
	e.addChunks(j, v < 0, lo&limbMask, lo>>32, mid&limbMask, mid>>32, top)
}

// addChunks adds (or subtracts, when neg) Σ c_i·2^(32·(j+i)); every c_i is
// below 2^32.
func (e *exactSum) addChunks(j int, neg bool, c0, c1, c2, c3, c4 uint64) {
	n := 3
	if c3 != 0 || c4 != 0 {
		n = 5
	}
	e.ensure(j, j+n-1)
	l := e.limbs[j-e.base : j-e.base+n]
	if neg {
		l[0] -= int64(c0)
		l[1] -= int64(c1)
		l[2] -= int64(c2)
		if n == 5 {
			l[3] -= int64(c3)
			l[4] -= int64(c4)
		}
	} else {
		l[0] += int64(c0)
		l[1] += int64(c1)
		l[2] += int64(c2)
		if n == 5 {
			l[3] += int64(c3)
			l[4] += int64(c4)
		}
	}
	e.pending++
	if e.pending >= normalizeEvery {
		e.normalize()
	}
}

// ensure makes limbs cover positions [from, to].
func (e *exactSum) ensure(from, to int) {
	if len(e.limbs) > 0 && from >= e.base && to < e.base+len(e.limbs) {
		return
	}
	e.grow(from, to)
}

func (e *exactSum) grow(from, to int) {
	if len(e.limbs) == 0 {
		e.base = max(from-1, 0)
		e.limbs = make([]int64, to+2-e.base)
		return
	}
	nb := max(min(from-1, e.base), 0)
	top := max(to+1, e.base+len(e.limbs)-1)
	nl := make([]int64, top+1-nb)
	copy(nl[e.base-nb:], e.limbs)
	e.limbs, e.base = nl, nb
}

// normalize propagates carries so that every limb but the last is in
// [0, 2^32); the last is signed and below 2^32 in magnitude.
func (e *exactSum) normalize() {
	e.pending = 0
	var carry int64
	for i := range e.limbs {
		x := e.limbs[i] + carry
		carry = x >> 32
		e.limbs[i] = x & limbMask
	}
	for carry != 0 && carry != -1 {
		e.limbs = append(e.limbs, carry&limbMask)
		carry >>= 32
	}
	if carry == -1 && len(e.limbs) > 0 {
		// The value is negative: fold the sign back into the top limb.
		e.limbs[len(e.limbs)-1] -= 1 << 32
	}
}

// merge adds o to e.
func (e *exactSum) merge(o *exactSum) {
	if len(o.limbs) == 0 {
		return
	}
	e.ensure(o.base, o.base+len(o.limbs)-1)
	for i, x := range o.limbs {
		e.limbs[o.base+i-e.base] += x
	}
	e.normalize()
}

func (e *exactSum) reset() {
	clear(e.limbs)
	e.pending = 0
}

// canonical returns the sign and magnitude of the sum: magnitude =
// Σ mag[i]·2^(32·(base+i)) units, with mag's first and last entries nonzero
// (mag is empty for zero). e is not modified.
func (e *exactSum) canonical() (neg bool, base int, mag []uint32) {
	t := exactSum{limbs: append([]int64(nil), e.limbs...), base: e.base}
	t.normalize()
	n := len(t.limbs)
	for n > 0 && t.limbs[n-1] == 0 {
		n--
	}
	if n == 0 {
		return false, 0, nil
	}
	l := t.limbs[:n]
	if l[n-1] < 0 {
		neg = true
		for i := range l {
			l[i] = -l[i]
		}
		t.limbs = l
		t.normalize()
		l = t.limbs
		for n = len(l); l[n-1] == 0; n-- {
		}
		l = l[:n]
	}
	start := 0
	for l[start] == 0 {
		start++
	}
	mag = make([]uint32, len(l)-start)
	for i := range mag {
		mag[i] = uint32(l[start+i])
	}
	return neg, t.base + start, mag
}

// float returns the sum rounded to the nearest float64 (ties to even);
// ±Inf when it exceeds the float64 range.
func (e *exactSum) float() float64 {
	neg, base, mag := e.canonical()
	if len(mag) == 0 {
		return 0
	}
	words := make([]big.Word, 0, len(mag))
	if bits.UintSize == 64 {
		for i := 0; i < len(mag); i += 2 {
			w := uint64(mag[i])
			if i+1 < len(mag) {
				w |= uint64(mag[i+1]) << 32
			}
			words = append(words, big.Word(w))
		}
	} else {
		for _, m := range mag {
			words = append(words, big.Word(m))
		}
	}
	x := new(big.Int).SetBits(words)
	f := new(big.Float).SetInt(x)
	f.SetMantExp(f, 32*base-1074)
	r, _ := f.Float64()
	if neg {
		r = -r
	}
	return r
}
