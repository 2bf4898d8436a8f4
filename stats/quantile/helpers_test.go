package quantile

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// testQuantiles are the q every accuracy test checks, plus 0..1 in steps of
// 0.01 (see allQuantiles).
var testQuantiles = []float64{0, 1e-4, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1}

func allQuantiles() []float64 {
	qs := slices.Clone(testQuantiles)
	for i := range 101 {
		qs = append(qs, float64(i)/100)
	}
	return qs
}

// exactQuantile is the value of rank ⌊q·(n−1)⌋ in sorted, the convention the
// sketch documents.
func exactQuantile(sorted []float64, q float64) float64 {
	return sorted[int(math.Floor(q*float64(len(sorted)-1)))]
}

// dataset generates n values of one distribution from a seeded source.
type dataset struct {
	name string
	gen  func(r *rand.Rand) float64
}

func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

var datasets = []dataset{
	{"uniform", func(r *rand.Rand) float64 { return r.Float64() * 1000 }},
	{"exponential", func(r *rand.Rand) float64 { return r.ExpFloat64() * 0.05 }},
	{"lognormal-latency", func(r *rand.Rand) float64 { return math.Exp(math.Log(0.08) + 0.9*r.NormFloat64()) }},
	{"bimodal", func(r *rand.Rand) float64 {
		if r.IntN(10) < 7 {
			return math.Exp(math.Log(0.005) + 0.3*r.NormFloat64())
		}
		return math.Exp(math.Log(2) + 0.4*r.NormFloat64())
	}},
	{"constant", func(*rand.Rand) float64 { return 0.25 }},
	{"with-zeros", func(r *rand.Rand) float64 {
		if r.IntN(4) == 0 {
			return 0
		}
		return r.ExpFloat64()
	}},
	{"huge-range", func(r *rand.Rand) float64 { return logUniform(r, 1e-6, 1e9) }},
	{"negative", func(r *rand.Rand) float64 { return -logUniform(r, 1e-3, 1e4) }},
	{"mixed-sign", func(r *rand.Rand) float64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1, 2:
			return -logUniform(r, 1e-9, 1e6)
		}
		return logUniform(r, 1e-9, 1e6)
	}},
	{"integers", func(r *rand.Rand) float64 { return float64(r.IntN(20) + 1) }},
}

func generate(d dataset, seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = d.gen(r)
	}
	return vs
}

func mustNew(t testing.TB, alpha float64) *Sketch {
	t.Helper()
	s, err := New(alpha)
	if err != nil {
		t.Fatalf("New(%v): %v", alpha, err)
	}
	return s
}

func sketchOf(t testing.TB, alpha float64, vs []float64) *Sketch {
	t.Helper()
	s := mustNew(t, alpha)
	for _, v := range vs {
		s.Add(v)
	}
	return s
}

func mustMarshal(t testing.TB, s *Sketch) []byte {
	t.Helper()
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return b
}

// checkAccuracy checks every q against the exact quantile x of vs (which
// must be the finite values s holds): within α of x where the package
// documentation guarantees it, and otherwise (collapsed lowest buckets) an
// overestimate no larger than Max. It returns the largest relative error
// among the guaranteed quantiles and how many quantiles were not guaranteed.
func checkAccuracy(t *testing.T, s *Sketch, vs []float64, qs []float64) (worst float64, collapsed int) {
	t.Helper()
	sorted := slices.Clone(vs)
	slices.Sort(sorted)
	return checkSorted(t, s, sorted, qs)
}

// checkSorted is checkAccuracy for values already sorted.
func checkSorted(t *testing.T, s *Sketch, sorted []float64, qs []float64) (worst float64, collapsed int) {
	t.Helper()
	for _, q := range qs {
		got, err := s.Quantile(q)
		if err != nil {
			t.Fatalf("Quantile(%v): %v", q, err)
		}
		want := exactQuantile(sorted, q)
		if want != 0 && math.Abs(want) < s.m.minIndexable { // counted as zero
			if math.Abs(got-want) >= 2.3e-308 {
				t.Errorf("Quantile(%v) = %v, want %v ± 2.3e-308", q, got, want)
			}
			continue
		}
		if !guaranteed(s, sorted, want) {
			if got < want || got > sorted[len(sorted)-1] {
				t.Errorf("Quantile(%v) = %v in a collapsed range, want in [%v, %v]", q, got, want, sorted[len(sorted)-1])
			}
			collapsed++
			continue
		}
		if math.Abs(got-want) > s.Alpha()*math.Abs(want) {
			t.Errorf("Quantile(%v) = %v, want %v ± %v (relative error %.3g)",
				q, got, want, s.Alpha(), relErr(got, want))
		}
		worst = max(worst, relErr(got, want))
	}
	return worst, collapsed
}

// guaranteed reports whether the documented α guarantee covers x despite
// collapsing: x = 0, x > M·γ^−(MaxBuckets−1) for the largest value M, or
// |x| < m·γ^(MaxBuckets−1) for the smallest negative magnitude m.
func guaranteed(s *Sketch, sorted []float64, x float64) bool {
	span := math.Exp(float64(MaxBuckets-1) * s.m.lnGamma)
	switch {
	case x > 0:
		return x > sorted[len(sorted)-1]/span*(1+1e-9)
	case x < 0:
		i, _ := slices.BinarySearch(sorted, 0)
		return -x < -sorted[i-1]*span*(1-1e-9)
	}
	return true
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}
