package quantile

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBoundedSize adds 10M values spread over 600 orders of magnitude of
// both signs: each store keeps at most MaxBuckets buckets, the encoding stays
// bounded, and the quantiles the documentation still guarantees (the upper
// ones of each sign) keep α.
func TestBoundedSize(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	r := rand.New(rand.NewPCG(21, 22))
	vs := make([]float64, n)
	for i := range vs {
		v := logUniform(r, 1e-300, 1e300)
		if i%4 == 0 {
			v = -v
		}
		vs[i] = v
	}
	s := mustNew(t, DefaultAlpha)
	for _, v := range vs {
		s.Add(v)
	}
	for name, st := range map[string]*store{"positive": &s.pos, "negative": &s.neg} {
		if len(st.bins) > MaxBuckets || int(st.hi-st.lo) >= MaxBuckets {
			t.Errorf("%s store: %d bins, keys [%d, %d]; want at most %d", name, len(st.bins), st.lo, st.hi, MaxBuckets)
		}
	}
	b := mustMarshal(t, s)
	// Per bucket at most a 4-byte varint here (counts < 2^28), plus headers.
	if limit := 2*MaxBuckets*4 + 200; len(b) > limit {
		t.Errorf("encoding is %d bytes, want ≤ %d", len(b), limit)
	}
	t.Logf("%d values over 1e-300..1e300: %d + %d buckets, %d bytes encoded", n, len(s.pos.used()), len(s.neg.used()), len(b))

	sorted := vs
	slices.Sort(sorted)
	qs := []float64{0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1}
	worst, collapsed := checkSorted(t, s, sorted, qs)
	if collapsed == 0 || collapsed == len(qs) {
		t.Errorf("%d of %d quantiles collapsed, want some but not all", collapsed, len(qs))
	}
	if worst > DefaultAlpha {
		t.Errorf("worst relative error %v, want ≤ %v", worst, DefaultAlpha)
	}
	for _, q := range []float64{0.99, 0.999} {
		got, _ := s.Quantile(q)
		want := exactQuantile(sorted, q)
		if math.Abs(got-want) > DefaultAlpha*want {
			t.Errorf("Quantile(%v) = %v, want %v ± 1%%", q, got, want)
		}
	}
}
