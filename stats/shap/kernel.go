package shap

import (
	"fmt"
	"math"
)

// A Model is any model as a batch function: one output per row, in the
// space the values are wanted in.
type Model func(rows [][]float64) ([]float64, error)

// KernelOptions tunes Kernel.
type KernelOptions struct {
	// ExactFeatures is the largest number of varying features for which
	// every coalition is enumerated (default 11, where shap's default
	// sample count, 2M+2048, covers every coalition).
	ExactFeatures int
	// Samples is the number of coalitions evaluated when sampling
	// (default 2M+2048, shap's).
	Samples int
	// Seed seeds the coalition sampler.
	Seed uint64
	// Progress, when set, is called as the coalitions are evaluated, with
	// how many of how many are done; they are then evaluated in about
	// ProgressSteps calls of the model instead of one, each of a whole
	// number of Batch rows (so that a model called in batches of Batch
	// rows gets no more calls than before).
	Progress func(done, total int)
	Batch    int
	// Workers is how many goroutines KernelTree evaluates the coalitions
	// on (default 1); Kernel calls its model from one.
	Workers int
}

// ProgressSteps is about how many calls of the model the coalitions are
// evaluated in when KernelOptions.Progress is set.
const ProgressSteps = 20

// A KernelResult is a Result and whether it is exact.
type KernelResult struct {
	Result
	Exact bool // every coalition was enumerated
}

// Kernel returns the Kernel SHAP values of row x for model f against
// background rows: the Shapley values of the game v(S) = mean over the
// background of f(x on S, background row elsewhere). Features equal to x
// in every background row cannot change the output and get 0 (shap's
// varying features). The base value is the mean output over the
// background.
func Kernel(f Model, x []float64, background [][]float64, opt KernelOptions) (KernelResult, error) {
	return kernel(f, nil, x, background, opt)
}

// kernel is Kernel with the coalitions' values computed by the function
// newEval returns for the varying features when it is set (the same numbers
// as f gives on the hybrid rows), from f's hybrid rows otherwise.
func kernel(f Model, newEval func(varying []int) func(masks []uint64) ([]float64, error), x []float64, background [][]float64, opt KernelOptions) (KernelResult, error) {
	if len(background) == 0 {
		return KernelResult{}, fmt.Errorf("%w: the background set is empty", ErrInvalid)
	}
	for bi, z := range background {
		if len(z) != len(x) {
			return KernelResult{}, fmt.Errorf("%w: background row %d has %d features, the row %d", ErrInvalid, bi, len(z), len(x))
		}
	}
	if opt.ExactFeatures <= 0 {
		opt.ExactFeatures = 11
	}
	g := &game{f: f, x: x, background: background, varying: varying(x, background), progress: opt.Progress, batch: max(1, opt.Batch)}
	g.eval = g.evaluate
	if newEval != nil {
		g.eval = newEval(g.varying)
	}
	m := len(g.varying)
	fx, err := f([][]float64{x})
	if err != nil {
		return KernelResult{}, fmt.Errorf("model: %w", err)
	}
	fnull, err := g.value(nil)
	if err != nil {
		return KernelResult{}, err
	}
	r := KernelResult{Result: Result{Base: fnull, Output: fx[0], Values: make([]float64, len(x))}, Exact: true}
	var phi []float64
	switch {
	case m == 0:
	case m == 1:
		phi = []float64{fx[0] - fnull}
	case m <= opt.ExactFeatures:
		phi, err = g.exact()
	default:
		r.Exact = false
		phi, err = g.sampled(opt, fx[0], fnull)
	}
	if err != nil {
		return KernelResult{}, err
	}
	for k, i := range g.varying {
		r.Values[i] = phi[k]
	}
	return r, r.Check(additivityTol)
}

// varying returns the features where some background row differs from x
// (NaN equals NaN).
func varying(x []float64, background [][]float64) []int {
	var out []int
	for i, v := range x {
		for _, z := range background {
			if z[i] != v && !(math.IsNaN(z[i]) && math.IsNaN(v)) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// game is the coalition game of one explained row.
type game struct {
	f          Model
	x          []float64
	background [][]float64
	varying    []int
	progress   func(done, total int)
	batch      int
	eval       func(masks []uint64) ([]float64, error) // v(S) of each coalition: evaluate, or a tree traversal
}

// values returns v(S) for each coalition, given as a mask over the varying
// features (bit k set: varying feature k takes x's value): in one call of
// the model, or, with progress, in steps of a whole number of batches
// reporting each.
func (g *game) values(masks []uint64) ([]float64, error) {
	if g.progress == nil || len(masks) < 2 {
		return g.eval(masks)
	}
	nb := len(g.background)
	unit := g.batch / gcd(nb, g.batch) // coalitions whose rows fill whole batches
	step := max(unit, len(masks)/ProgressSteps/unit*unit)
	v := make([]float64, 0, len(masks))
	for from := 0; from < len(masks); from += step {
		part, err := g.eval(masks[from:min(from+step, len(masks))])
		if err != nil {
			return nil, err
		}
		v = append(v, part...)
		g.progress(len(v), len(masks))
	}
	return v, nil
}

// gcd is the greatest common divisor of two positive numbers.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// evaluate returns v(S) for each coalition, evaluating the model on all
// their hybrid rows in one batch.
func (g *game) evaluate(masks []uint64) ([]float64, error) {
	nb := len(g.background)
	rows := make([][]float64, 0, len(masks)*nb)
	flat := make([]float64, len(masks)*nb*len(g.x))
	for _, mask := range masks {
		for _, z := range g.background {
			row := flat[:len(g.x):len(g.x)]
			flat = flat[len(g.x):]
			copy(row, z)
			for k, i := range g.varying {
				if mask>>k&1 == 1 {
					row[i] = g.x[i]
				}
			}
			rows = append(rows, row)
		}
	}
	out, err := g.f(rows)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if len(out) != len(rows) {
		return nil, fmt.Errorf("model: %d outputs for %d rows", len(out), len(rows))
	}
	v := make([]float64, len(masks))
	for c := range masks {
		s := 0.0
		for _, y := range out[c*nb : (c+1)*nb] {
			s += y
		}
		v[c] = s / float64(nb)
	}
	return v, nil
}

// value returns v(S) of one coalition (nil: the empty one).
func (g *game) value(mask []int) (float64, error) {
	var m uint64
	for _, k := range mask {
		m |= 1 << k
	}
	v, err := g.values([]uint64{m})
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// exact enumerates every coalition and applies the Shapley formula:
// φ_k = Σ_{S∌k} |S|!(M−|S|−1)!/M! · (v(S∪k) − v(S)).
func (g *game) exact() ([]float64, error) {
	m := len(g.varying)
	masks := make([]uint64, 1<<m)
	for i := range masks {
		masks[i] = uint64(i)
	}
	v, err := g.values(masks)
	if err != nil {
		return nil, err
	}
	w := newShapleyWeights(m)
	phi := make([]float64, m)
	for s := range masks {
		size := popcount(uint64(s))
		for k := range m {
			if s>>k&1 == 0 {
				phi[k] += w.at(size, m-size-1) * (v[s|1<<k] - v[s])
			}
		}
	}
	return phi, nil
}

// popcount returns the number of set bits.
func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
