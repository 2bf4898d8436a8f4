package shap

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error about input that cannot be
// explained (a row of the wrong width, an empty background): an API
// answers 422 for it.
var ErrInvalid = errors.New("invalid explanation input")

// ErrAdditivity is returned when a result's base value plus its
// contributions does not give the model's output: a bug, never a user's
// error.
var ErrAdditivity = errors.New("shap values do not add up to the model output")

// A Result is one explained row.
type Result struct {
	Base   float64   // the expected output: E[f] over the covers or the background
	Values []float64 // one contribution per feature
	Output float64   // the model's output for the row, in the same space
}

// Check verifies additivity: |Base + ΣValues − Output| within tol times
// max(1, |Output|, Σ|Values|).
func (r *Result) Check(tol float64) error {
	sum, abs := r.Base, math.Abs(r.Base)
	for _, v := range r.Values {
		sum += v
		abs += math.Abs(v)
	}
	scale := max(1, math.Abs(r.Output), abs)
	if d := math.Abs(sum - r.Output); !(d <= tol*scale) {
		return fmt.Errorf("%w: base %v + contributions = %v, output %v", ErrAdditivity, r.Base, sum, r.Output)
	}
	return nil
}

// additivityTol is the relative tolerance of the additivity check.
const additivityTol = 1e-9
