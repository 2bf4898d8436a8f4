package shap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/stats/shap"
)

// interacting is a model with interactions of two and three features
// over 12 features.
func interacting(rows [][]float64) ([]float64, error) {
	out := make([]float64, len(rows))
	for i, a := range rows {
		s := 0.0
		for j := 0; j < 12; j += 2 {
			s += a[j]*a[j+1]*a[(j+2)%12] + math.Max(a[j+1], a[(j+5)%12]) + math.Sin(a[j])
		}
		out[i] = s
	}
	return out, nil
}

// randomRows draws n rows of m standard normals.
func randomRows(rng *rand.Rand, n, m int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m)
		for j := range out[i] {
			out[i][j] = rng.NormFloat64()
		}
	}
	return out
}

// TestKernelSampledNearExact checks sampled Kernel SHAP (the default
// budget, 2M+2048 coalitions, for 12 features: sizes 1, 2 and 10, 11
// taken whole, the rest sampled) against every coalition enumerated: each
// value within 0.05 of the largest |value|, and additivity exact. The
// stated tolerance holds for this model and seed; sampled values carry
// sampling error in general, and a result says it is approximate.
func TestKernelSampledNearExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	bg := randomRows(rng, 10, 12)
	x := randomRows(rng, 1, 12)[0]
	exact, err := shap.Kernel(interacting, x, bg, shap.KernelOptions{ExactFeatures: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !exact.Exact {
		t.Fatal("got approximate, want exact")
	}
	sampled, err := shap.Kernel(interacting, x, bg, shap.KernelOptions{ExactFeatures: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sampled.Exact {
		t.Fatal("got exact, want approximate")
	}
	top := 0.0
	for _, v := range exact.Values {
		top = max(top, math.Abs(v))
	}
	for i := range exact.Values {
		d := math.Abs(sampled.Values[i] - exact.Values[i])
		if d > 0.05*top {
			t.Errorf("feature %d: got %v, want %v within %v", i, sampled.Values[i], exact.Values[i], 0.05*top)
		}
	}
	if !(math.Abs(sampled.Base-exact.Base) < 1e-12) {
		t.Errorf("base: got %v, want %v", sampled.Base, exact.Base)
	}
}

// TestKernelRefusesBadInput checks ErrInvalid on an empty background and
// rows of the wrong width, and that a model error is passed on.
func TestKernelRefusesBadInput(t *testing.T) {
	f := func(name string, x []float64, bg [][]float64, m shap.Model, want error) {
		t.Helper()
		_, err := shap.Kernel(m, x, bg, shap.KernelOptions{})
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
	}
	boom := errors.New("boom")
	failing := func([][]float64) ([]float64, error) { return nil, boom }
	f("empty background", []float64{1, 2}, nil, interacting, shap.ErrInvalid)
	f("short background row", []float64{1, 2}, [][]float64{{1}}, interacting, shap.ErrInvalid)
	f("model error", []float64{1, 2}, [][]float64{{0, 0}}, failing, boom)
}

// TestCheckAdditivity checks that a result that does not add up is caught.
func TestCheckAdditivity(t *testing.T) {
	r := shap.Result{Base: 1, Values: []float64{0.5, 0.25}, Output: 1.75}
	if err := r.Check(1e-9); err != nil {
		t.Errorf("got %v, want nil", err)
	}
	r.Output = 1.76
	if err := r.Check(1e-9); !errors.Is(err, shap.ErrAdditivity) {
		t.Errorf("got %v, want ErrAdditivity", err)
	}
}

// TestKernelProgress checks that reporting progress changes no value (to
// the bit), that the reports climb to the total, and that the model is
// called with whole batches except for the last call of the coalitions:
// exact (10 features) and sampled (12).
func TestKernelProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bg := randomRows(rng, 6, 12)
	for _, m := range []int{10, 12} {
		x := randomRows(rng, 1, 12)[0]
		for _, z := range bg { // features from m on do not vary
			copy(z[m:], x[m:])
		}
		want, err := shap.Kernel(interacting, x, bg, shap.KernelOptions{Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		var calls []int
		counted := func(rows [][]float64) ([]float64, error) {
			calls = append(calls, len(rows))
			return interacting(rows)
		}
		var reports [][2]int
		got, err := shap.Kernel(counted, x, bg, shap.KernelOptions{Seed: 9, Batch: 8,
			Progress: func(done, total int) { reports = append(reports, [2]int{done, total}) }})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want.Values {
			if got.Values[i] != want.Values[i] {
				t.Errorf("m=%d feature %d: got %v with progress, want %v", m, i, got.Values[i], want.Values[i])
			}
		}
		if len(reports) < 10 || reports[len(reports)-1][0] != reports[len(reports)-1][1] {
			t.Fatalf("m=%d: got reports %v, want at least 10 ending at the total", m, reports)
		}
		for i := 1; i < len(reports); i++ {
			if reports[i][0] <= reports[i-1][0] || reports[i][1] != reports[0][1] {
				t.Fatalf("m=%d: got reports %v, want them climbing to one total", m, reports)
			}
		}
		for i, n := range calls[2 : len(calls)-1] { // after f(x) and the empty coalition
			if n%8 != 0 {
				t.Errorf("m=%d call %d: got %d rows, want whole batches of 8", m, i+2, n)
			}
		}
	}
}
