package shap

import "github.com/vigilhq/vigil/stats/forest"

// NewTreeExplainerLimit tabulates only the trees whose paths have at most
// limit distinct features, so that tests reach Tree's recursion for the
// others.
var NewTreeExplainerLimit = newTreeExplainer

// CoalitionValues returns v(S) of each coalition from KernelTree's walk of
// e's trees, with varying features varying.
func CoalitionValues(e *forest.Ensemble, x []float64, background [][]float64, varying []int, workers int, masks []uint64) []float64 {
	v, _ := newCoalitionForest(e, x, background, varying, workers).values(masks)
	return v
}

// HybridValues returns v(S) of each coalition from f's hybrid rows, as
// Kernel computes it.
func HybridValues(f Model, x []float64, background [][]float64, varying []int, masks []uint64) ([]float64, error) {
	g := &game{f: f, x: x, background: background, varying: varying}
	return g.evaluate(masks)
}

// CoalitionTableValues returns v(S) of each coalition from KernelTree's
// table of partial coalitions; nil past tableFeatures varying features,
// where KernelTree walks once per coalition instead.
func CoalitionTableValues(e *forest.Ensemble, x []float64, background [][]float64, varying []int, workers int, masks []uint64) []float64 {
	if len(varying) > tableFeatures {
		return nil
	}
	t := &coalitionTable{c: newCoalitionForest(e, x, background, varying, workers), m: len(varying)}
	v, _ := t.values(masks)
	return v
}
