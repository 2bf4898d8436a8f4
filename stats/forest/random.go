package forest

import (
	"math"
	"math/rand/v2"
)

// Random returns a valid ensemble of 1 to 6 random trees, up to 7 levels
// deep, over features features, with either comparison, rounding or not,
// and every missing-value rule: for property tests of what evaluates or
// explains an Ensemble. Thresholds are often quarters, as RandomInput's
// values are, so that both comparisons matter.
func Random(rng *rand.Rand, features int) *Ensemble {
	e := &Ensemble{Base: rng.NormFloat64(), Scale: 1 + rng.Float64(), Compare: Compare(rng.IntN(2)), Float32: rng.IntN(2) == 0, NumFeatures: features}
	var grow func(t *Tree, depth int) int
	grow = func(t *Tree, depth int) int {
		i := len(t.Nodes)
		t.Nodes = append(t.Nodes, Node{Left: -1, Right: -1, Value: rng.NormFloat64()})
		if depth == 0 || rng.IntN(5) == 0 {
			return i
		}
		n := Node{Feature: rng.IntN(features), Threshold: math.Round(rng.NormFloat64()*4) / 4, DefaultLeft: rng.IntN(2) == 0, Missing: Missing(rng.IntN(3))}
		n.Left = grow(t, depth-1)
		n.Right = grow(t, depth-1)
		t.Nodes[i] = n
		return i
	}
	for range 1 + rng.IntN(6) {
		var t Tree
		grow(&t, 1+rng.IntN(7))
		e.Trees = append(e.Trees, t)
	}
	return e
}

// RandomInput returns a feature value for Random's models: NaN, 0, a
// quarter (often a threshold) or a standard normal.
func RandomInput(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return math.NaN()
	case 1:
		return 0
	case 2:
		return math.Round(rng.NormFloat64()*4) / 4
	}
	return rng.NormFloat64()
}
