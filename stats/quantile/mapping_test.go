package quantile

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFastLog compares fastLog with math.Log over the whole normal range and
// at the edges of its table intervals.
func TestFastLog(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := func(v float64) {
		t.Helper()
		got, want := fastLog(v), math.Log(v)
		if math.Abs(got-want) > 3e-13 {
			t.Fatalf("fastLog(%v) = %v, want %v (error %.3g)", v, got, want, got-want)
		}
	}
	for range 1_000_000 {
		f(math.Float64frombits(r.Uint64N(0x7fe<<52) + 1<<52)) // any normal
	}
	for i := range 1 << logTableBits {
		lo := 1 + float64(i)/(1<<logTableBits)
		for _, v := range []float64{lo, math.Nextafter(lo, 0), math.Nextafter(lo, 2)} {
			for _, scale := range []float64{1, 0x1p-1022, 0x1p1023, 1e-300, 1e300, 0.5} {
				f(v * scale)
			}
		}
	}
	f(0x1p-1022)
	f(math.MaxFloat64)
}

// TestMappingKeys: every value lies in its bucket (γ^(k−1), γ^k] up to the
// mapping's rounding, and the representative is within α of it.
func TestMappingKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, alpha := range []float64{MinAlpha, 0.001, DefaultAlpha, 0.05, MaxAlpha} {
		m := newMapping(alpha)
		for range 200_000 {
			v := math.Float64frombits(r.Uint64N(0x7fe<<52) + 1<<52)
			if v < m.minIndexable {
				continue
			}
			k := m.key(v)
			if k < m.minKey || k > m.maxKey {
				t.Fatalf("alpha %v: key(%v) = %d outside [%d, %d]", alpha, v, k, m.minKey, m.maxKey)
			}
			rep := m.value(k)
			if math.IsInf(rep, 1) {
				continue // the topmost buckets; Quantile clamps to Max
			}
			if math.Abs(rep-v) > alpha*v {
				t.Fatalf("alpha %v: value(key(%v)) = %v, relative error %.3g", alpha, v, rep, math.Abs(rep-v)/v)
			}
		}
	}
}
