package shap_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/shap"
)

// rawModel is e's raw output as a batch function (RawRows).
func rawModel(e *forest.Ensemble) shap.Model {
	return func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		e.RawRows(rows, out)
		return out, nil
	}
}

// rowModel is e's raw output row by row (Raw: the plain walk of the nodes).
func rowModel(e *forest.Ensemble) shap.Model {
	return func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		for i, x := range rows {
			out[i] = e.Raw(x)
		}
		return out, nil
	}
}

// TestKernelTreeMatchesShap checks KernelTree on every golden tree model
// (XGBoost, LightGBM, scikit-learn; 40 background rows, 5 features: every
// coalition enumerated) against shap.KernelExplainer over shap's float64
// tree predictor to 1e-9, and against Kernel over the model's hybrid rows
// to 1e-12 (relative: only the order of the additions differs), on one
// worker and on three.
func TestKernelTreeMatchesShap(t *testing.T) {
	g := load(t)
	for _, c := range g.Trees {
		e := model(t, c.Kind, c.File)
		bg := matrix(c.Background)
		for i, r := range c.Rows {
			x := row(r)
			want, err := shap.Kernel(rawModel(e), x, bg, shap.KernelOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 3} {
				got, err := shap.KernelTree(e, x, bg, shap.KernelOptions{Workers: workers})
				if err != nil {
					t.Fatalf("%s row %d: %v", c.Name, i, err)
				}
				if !got.Exact {
					t.Errorf("%s row %d: got approximate, want exact", c.Name, i)
				}
				compare(t, c.Name+" kernel tree", got.Result, c.Exact.Base, c.Exact.Values[i], 1e-9)
				if !near(got.Base, want.Base, reordered) || !near(got.Output, want.Output, reordered) {
					t.Errorf("%s row %d: got base %v output %v, want %v %v (to 1e-12)", c.Name, i, got.Base, got.Output, want.Base, want.Output)
				}
				for j := range want.Values {
					if !near(got.Values[j], want.Values[j], reordered) {
						t.Errorf("%s row %d feature %d: got %v, want %v (to 1e-12)", c.Name, i, j, got.Values[j], want.Values[j])
					}
				}
			}
		}
	}
}

// reordered is the tolerance between sums of the same terms added in
// another order (relative above 1).
const reordered = 1e-12

// TestKernelTreeEqualsHybridRows is the property behind KernelTree: on
// random ensembles, explained rows, backgrounds (1 to 150 rows, across the
// 64-row sets) and coalitions, the walk's v(S) equals the mean of the
// model over the hybrid rows (to 1e-12, relative), with features that
// never vary among them: both walks, one per coalition and the table of
// partial coalitions.
func TestKernelTreeEqualsHybridRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 6))
	for trial := range 300 {
		nf := 1 + rng.IntN(14) // up to 13 varying: the table's limit and past it
		e := forest.Random(rng, nf)
		if err := e.Validate(); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, nf)
		for j := range x {
			x[j] = forest.RandomInput(rng)
		}
		bg := make([][]float64, 1+rng.IntN(150))
		fixed := rng.IntN(nf) // a feature equal to x's in every background row
		for b := range bg {
			bg[b] = make([]float64, nf)
			for j := range bg[b] {
				bg[b][j] = forest.RandomInput(rng)
			}
			bg[b][fixed] = x[fixed]
		}
		var varying []int
		for j := range nf {
			if j != fixed {
				varying = append(varying, j)
			}
		}
		masks := make([]uint64, 1+rng.IntN(40))
		for m := range masks {
			masks[m] = rng.Uint64() & (1<<len(varying) - 1)
		}
		want, err := shap.HybridValues(rowModel(e), x, bg, varying, masks)
		if err != nil {
			t.Fatal(err)
		}
		walks := map[string][]float64{
			"per coalition": shap.CoalitionValues(e, x, bg, varying, 1+trial%3, masks),
			"table":         shap.CoalitionTableValues(e, x, bg, varying, 1+trial%3, masks),
		}
		for name, got := range walks {
			if got == nil {
				continue // past the table's features
			}
			for m := range masks {
				if !near(got[m], want[m], reordered) {
					t.Fatalf("trial %d coalition %b, %s: got %v, want %v", trial, masks[m], name, got[m], want[m])
				}
			}
		}
	}
}

// TestKernelTreeSampledEqualsKernel checks KernelTree where Kernel samples
// coalitions (12 to 14 varying features: the table, then the walk per
// coalition) against Kernel over the hybrid rows with the same seed: the
// same coalitions, values equal but for the order of the additions.
func TestKernelTreeSampledEqualsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 12))
	for _, nf := range []int{12, 13, 14} {
		e := forest.Random(rng, nf)
		x := make([]float64, nf)
		for j := range x {
			x[j] = forest.RandomInput(rng)
		}
		bg := make([][]float64, 70)
		for b := range bg {
			bg[b] = make([]float64, nf)
			for j := range bg[b] {
				bg[b][j] = forest.RandomInput(rng)
			}
		}
		opt := shap.KernelOptions{Seed: uint64(nf), Samples: 600, Workers: 2}
		want, err := shap.Kernel(rowModel(e), x, bg, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := shap.KernelTree(e, x, bg, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Exact || want.Exact {
			t.Errorf("%d features: got exact %v (Kernel %v), want sampled", nf, got.Exact, want.Exact)
		}
		for j := range want.Values {
			if !near(got.Values[j], want.Values[j], 1e-9) {
				t.Errorf("%d features, feature %d: got %v, want %v (to 1e-9)", nf, j, got.Values[j], want.Values[j])
			}
		}
	}
}
