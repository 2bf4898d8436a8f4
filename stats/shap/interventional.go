package shap

import (
	"fmt"

	"github.com/vigilhq/vigil/stats/forest"
)

// TreeInterventional returns the interventional TreeSHAP values of row x
// for model e against background rows: for each background row z, the
// exact Shapley values of the game v(S) = f(x on S, z elsewhere), then
// their mean. The base value is the mean output over the background.
func TreeInterventional(e *forest.Ensemble, x []float64, background [][]float64) (Result, error) {
	if len(x) != e.NumFeatures {
		return Result{}, fmt.Errorf("%w: the row has %d features, the model reads %d", ErrInvalid, len(x), e.NumFeatures)
	}
	if len(background) == 0 {
		return Result{}, fmt.Errorf("%w: the background set is empty", ErrInvalid)
	}
	d := e.MaxDepth() + 1
	w := newShapleyWeights(d)
	st := interState{e: e, x: x, w: w, side: make([]int8, len(x)), phi: make([]float64, len(x))}
	base := 0.0
	for bi, z := range background {
		if len(z) != e.NumFeatures {
			return Result{}, fmt.Errorf("%w: background row %d has %d features, the model reads %d", ErrInvalid, bi, len(z), e.NumFeatures)
		}
		st.z = z
		for ti := range e.Trees {
			st.walk(&e.Trees[ti], 0, 0, 0)
		}
		base += e.Raw(z)
	}
	nb := float64(len(background))
	r := Result{Values: make([]float64, len(x)), Base: base / nb, Output: e.Raw(x)}
	for i, p := range st.phi {
		r.Values[i] = e.Scale * p / nb
	}
	return r, r.Check(additivityTol)
}

// interState is the walk of one explained row against one background row.
type interState struct {
	e    *forest.Ensemble
	x, z []float64
	w    shapleyWeights
	side []int8 // per feature: 0 not met, 1 follows x, -1 follows z
	phi  []float64
}

// walk descends tree t from node with a features following x and b
// following z; where x and z part at a feature not yet met, both ways are
// taken. At a leaf, each feature following x gains value·(a−1)!b!/(a+b)!
// and each following z loses value·a!(b−1)!/(a+b)!.
func (s *interState) walk(t *forest.Tree, node, a, b int) {
	n := &t.Nodes[node]
	if n.Leaf() {
		if a+b == 0 {
			return
		}
		pos, neg := 0.0, 0.0
		if a > 0 {
			pos = n.Value * s.w.at(a-1, b)
		}
		if b > 0 {
			neg = n.Value * s.w.at(a, b-1)
		}
		for f, sd := range s.side {
			switch sd {
			case 1:
				s.phi[f] += pos
			case -1:
				s.phi[f] -= neg
			}
		}
		return
	}
	xc := s.e.Next(n, s.e.Input(s.x[n.Feature]))
	zc := s.e.Next(n, s.e.Input(s.z[n.Feature]))
	switch {
	case xc == zc:
		s.walk(t, xc, a, b)
	case s.side[n.Feature] == 1:
		s.walk(t, xc, a, b)
	case s.side[n.Feature] == -1:
		s.walk(t, zc, a, b)
	default:
		s.side[n.Feature] = 1
		s.walk(t, xc, a+1, b)
		s.side[n.Feature] = -1
		s.walk(t, zc, a, b+1)
		s.side[n.Feature] = 0
	}
}

// shapleyWeights holds k!(n−k−1)!/n! style weights: at(a, b) =
// a!·b!/(a+b+1)!, the weight of a coalition of a players (besides the one
// scored) out of a+b+1.
type shapleyWeights struct {
	n int
	w []float64
}

// newShapleyWeights tabulates at(a, b) for a+b < n.
func newShapleyWeights(n int) shapleyWeights {
	n = max(n, 1)
	s := shapleyWeights{n: n, w: make([]float64, n*n)}
	for a := range n {
		for b := 0; a+b < n; b++ {
			// a!b!/(a+b+1)! = 1 / ((a+b+1) * C(a+b, a))
			s.w[a*n+b] = 1 / (float64(a+b+1) * binomial(a+b, a))
		}
	}
	return s
}

// at returns a!·b!/(a+b+1)!.
func (s shapleyWeights) at(a, b int) float64 { return s.w[a*s.n+b] }

// binomial returns C(n, k) as a float64.
func binomial(n, k int) float64 {
	k = min(k, n-k)
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
