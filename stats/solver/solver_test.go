package solver_test

import (
	"math"
	"testing"

	"github.com/vigilhq/vigil/stats/solver"
)

// TestSolve checks a system needing a row swap, and a singular one.
func TestSolve(t *testing.T) {
	x, singular := solver.Solve([]float64{0, 2, 1, 1}, []float64{4, 3}, 2)
	if len(singular) != 0 || math.Abs(x[0]-1) > 1e-15 || math.Abs(x[1]-2) > 1e-15 {
		t.Errorf("got %v singular %v, want [1 2] and none", x, singular)
	}
	x, singular = solver.Solve([]float64{1, 0, 0, 0}, []float64{3, 0}, 2)
	if len(singular) != 1 || singular[0] != 1 || x[0] != 3 || x[1] != 0 {
		t.Errorf("got %v singular %v, want [3 0] and [1]", x, singular)
	}
}
