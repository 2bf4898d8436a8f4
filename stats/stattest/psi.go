package stattest

import "math"

// DefaultPSIEpsilon is the proportion PSI gives an empty cell when asked
// for an epsilon of 0 or less.
const DefaultPSIEpsilon = 1e-4

// PSIResult is the population stability index of a Table.
type PSIResult struct {
	// Value is Σ (q_i - p_i)·ln(q_i/p_i) over the cells, p the reference
	// and q the current proportions after the epsilon floor.
	Value float64
	// Cells is the number of cells (bins or categories).
	Cells int
	// EmptyRef and EmptyCur count the cells whose proportion was raised
	// to epsilon.
	EmptyRef, EmptyCur int
	// Counts are the values used and the missing values removed.
	Counts
}

// PSI is the population stability index in natural-log units. A cell with
// proportion below epsilon (in practice: an empty cell) gets proportion
// epsilon instead, on either side, and the proportions are not
// renormalised; epsilon <= 0 means DefaultPSIEpsilon. So an empty cell on
// both sides adds 0, and a category unseen in the reference adds
// (q - ε)·ln(q/ε). For numeric features use Numeric.Bin first (10
// reference-quantile bins by default).
//
// PSI is Σ (q - p)·ln(q/p) over the cells, natural logarithm, with p and q
// the reference and current proportions. A proportion below ε = 1e-4
// (DefaultPSIEpsilon; in practice an empty cell) is raised to ε on that
// side, without renormalising: an empty cell on both sides adds 0, and a
// category absent from the reference adds (q - ε)·ln(q/ε).
func (t Table) PSI(epsilon float64) PSIResult {
	if epsilon <= 0 {
		epsilon = DefaultPSIEpsilon
	}
	p, q := t.proportions()
	res := PSIResult{Cells: len(p), Counts: t.Counts}
	for i := range p {
		if p[i] < epsilon {
			p[i] = epsilon
			res.EmptyRef++
		}
		if q[i] < epsilon {
			q[i] = epsilon
			res.EmptyCur++
		}
		res.Value += (q[i] - p[i]) * math.Log(q[i]/p[i])
	}
	return res
}
