package quantile

import "math"

// mappingSlack is subtracted from α to build the bucket mapping, so that the
// floating-point error of log and exp (relative error about 1e-12 over the
// whole float64 range) cannot push a returned quantile past α.
const mappingSlack = 1e-11

// mapping is the logarithmic index mapping: value v > 0 goes to key
// ⌈ln v / ln γ⌉, and key k is represented by 2γ^k/(1+γ).
type mapping struct {
	alpha        float64 // the accuracy the caller asked for
	lnGamma      float64
	multiplier   float64 // 1/ln γ
	repFactor    float64 // 2/(1+γ)
	minIndexable float64 // smaller magnitudes count as zero
	minKey       int32   // key of minIndexable
	maxKey       int32   // key of math.MaxFloat64
}

func newMapping(alpha float64) mapping {
	a := alpha - mappingSlack
	gammaMantissa := 2 * a / (1 - a)
	gamma := 1 + gammaMantissa
	m := mapping{
		alpha:        alpha,
		lnGamma:      math.Log1p(gammaMantissa),
		repFactor:    2 / (1 + gamma),
		minIndexable: 0x1p-1022 * gamma,
	}
	m.multiplier = 1 / m.lnGamma
	m.minKey = m.key(m.minIndexable)
	m.maxKey = m.key(math.MaxFloat64)
	return m
}

// key returns the bucket of v; v must be in [minIndexable, MaxFloat64].
func (m *mapping) key(v float64) int32 {
	return int32(math.Ceil(fastLog(v) * m.multiplier))
}

// logTableBits is the number of leading mantissa bits fastLog looks up.
const logTableBits = 7

// logTable[i] holds, for the mantissas m in [1+i/128, 1+(i+1)/128), inv ≈
// 1/c at the interval's centre c, and log = −ln(inv).
var logTable = func() (t [1 << logTableBits]struct{ inv, log float64 }) {
	for i := range t {
		c := 1 + (float64(i)+0.5)/(1<<logTableBits)
		t[i].inv = 1 / c
		t[i].log = -math.Log(t[i].inv)
	}
	return t
}()

// fastLog returns ln v for a normal, positive, finite v with an absolute
// error below 3e-13 (about 3 times math.Log's own near ln v = ±709), in a
// third of math.Log's time: v = 2^e·m, m = (1+r)/inv for a table entry, and
// ln(1+r), |r| < 2^−8, is a degree-5 series whose truncation error is below
// 1e-15. mappingSlack absorbs the error (see the package documentation).
func fastLog(v float64) float64 {
	b := math.Float64bits(v)
	e := int(b>>52) - 1023
	t := &logTable[b>>(52-logTableBits)&(1<<logTableBits-1)]
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	r := m*t.inv - 1
	p := r * (1 + r*(-1.0/2+r*(1.0/3+r*(-1.0/4+r*(1.0/5)))))
	return float64(e)*math.Ln2 + (t.log + p)
}

// value returns the representative of bucket k. It may overflow to +Inf for
// the topmost buckets; callers clamp to the exact maximum.
func (m *mapping) value(k int32) float64 {
	return math.Exp(float64(k)*m.lnGamma) * m.repFactor
}
