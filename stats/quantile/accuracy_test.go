package quantile

import (
	"fmt"
	"testing"
)

// TestQuantileAccuracy: for every distribution, size and α, every quantile
// is within α of the exact value of rank ⌊q·(n−1)⌋.
func TestQuantileAccuracy(t *testing.T) {
	sizes := []int{1, 2, 3, 10, 101, 1000, 100_000}
	alphas := []float64{DefaultAlpha, 0.001, 0.05}
	qs := allQuantiles()
	worst := map[float64]float64{}
	defer func() {
		for _, alpha := range alphas {
			t.Logf("alpha=%v: worst relative error %.9g", alpha, worst[alpha])
		}
	}()
	for _, d := range datasets {
		for _, alpha := range alphas {
			for i, n := range sizes {
				t.Run(fmt.Sprintf("%s/alpha=%v/n=%d", d.name, alpha, n), func(t *testing.T) {
					vs := generate(d, uint64(100+i), n)
					s := sketchOf(t, alpha, vs)
					if got := s.Count(); got != uint64(n) {
						t.Fatalf("Count() = %d, want %d", got, n)
					}
					w, collapsed := checkAccuracy(t, s, vs, qs)
					if w > alpha {
						t.Errorf("worst relative error %v, want ≤ %v", w, alpha)
					}
					if alpha == DefaultAlpha && collapsed > 0 {
						t.Errorf("%d quantiles in collapsed buckets, want 0 at the default alpha", collapsed)
					}
					worst[alpha] = max(worst[alpha], w)
				})
			}
		}
	}
}

// TestQuantileBucketBoundaries adds values on and next to bucket
// boundaries γ^k, where rounding in log and exp matters most.
func TestQuantileBucketBoundaries(t *testing.T) {
	m := newMapping(DefaultAlpha)
	var vs []float64
	for k := int32(-35000); k <= 35000; k += 97 {
		b := m.value(k) / m.repFactor // ≈ γ^k
		for _, v := range []float64{b, b * (1 - 1e-15), b * (1 + 1e-15), -b} {
			if v > 1e-300 && v < 1e300 || v < -1e-300 && v > -1e300 {
				vs = append(vs, v)
			}
		}
	}
	qs := make([]float64, 0, 1001)
	for i := range 1001 {
		qs = append(qs, float64(i)/1000)
	}
	// The values span far more than MaxBuckets buckets, so check windows
	// narrow enough not to collapse, one sketch each.
	for _, win := range [][2]float64{{1e-10, 1e6}, {1e100, 1e110}, {1e-300, 1e-290}, {1e290, 1e300}} {
		var part []float64
		for _, v := range vs {
			if v >= win[0] && v <= win[1] {
				part = append(part, v)
			}
		}
		if _, collapsed := checkAccuracy(t, sketchOf(t, DefaultAlpha, part), part, qs); collapsed > 0 {
			t.Errorf("window %v: %d quantiles in collapsed buckets, want 0", win, collapsed)
		}
	}
}

// TestAddNEqualsRepeatedAdd: AddN(v, n) leaves the sketch n Adds of v
// would, byte for byte.
func TestAddNEqualsRepeatedAdd(t *testing.T) {
	vs := []float64{0, -0.0, 1e-310, 0.001, 0.5, 123456.789, -42, -1e-7, 1e300}
	for _, n := range []uint64{1, 2, 7, 1000} {
		a, b := mustNew(t, DefaultAlpha), mustNew(t, DefaultAlpha)
		for _, v := range vs {
			a.AddN(v, n)
			for range n {
				b.Add(v)
			}
		}
		if ga, gb := mustMarshal(t, a), mustMarshal(t, b); string(ga) != string(gb) {
			t.Errorf("n=%d: AddN encoding %x, want %x", n, ga, gb)
		}
	}
}
