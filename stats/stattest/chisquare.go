package stattest

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChiSquareResult is a Pearson chi-squared test.
type ChiSquareResult struct {
	// Statistic is Σ (observed - expected)² / expected.
	Statistic float64
	// PValue is the chi-squared survival function at Statistic with DOF
	// degrees of freedom (gonum's distuv.ChiSquared), 1 when DOF is 0.
	PValue float64
	// DOF is the degrees of freedom.
	DOF int
	// Corrected reports that Yates' continuity correction was applied.
	Corrected bool
	// Cells is the number of cells tested: cells empty in both samples are
	// left out.
	Cells int
	// Unseen counts cells with current values but no reference value.
	Unseen int
	// Counts are the values used and the missing values removed.
	Counts
}

// ChiSquare is the chi-squared test of homogeneity on the 2×K contingency
// table whose rows are the reference and current counts, matching
// scipy.stats.chi2_contingency(table, correction=yates). Cells empty in
// both samples are left out first (scipy would refuse a table with a zero
// column). Expected counts are row·column/total; DOF is K-1. As in scipy,
// Yates' correction applies only when DOF is 1: each observed count moves
// toward its expected count by min(0.5, |difference|). With a single cell
// left, DOF is 0, Statistic 0 and PValue 1.
//
// ChiSquare is scipy.stats.chi2_contingency on the 2×K table of reference
// and current counts, with Yates' correction only when asked and DOF is 1
// (as SciPy). GoodnessOfFit is scipy.stats.chisquare(cur, ref/n_ref·n_cur).
// Both leave out cells empty in both samples (SciPy would refuse or return
// NaN). A category present in the current sample but absent from the
// reference makes the goodness-of-fit statistic +Inf and its p-value 0, as
// in SciPy; ChiSquareResult.Unseen counts such categories. p-values use
// gonum's chi-squared survival function, which agrees with SciPy's to
// about 3e-14 relative on the golden cases.
func (t Table) ChiSquare(yates bool) ChiSquareResult {
	ref, cur := t.nonEmptyCells()
	res := ChiSquareResult{Cells: len(ref), DOF: len(ref) - 1, Unseen: t.unseen(), Counts: t.Counts}
	if res.DOF <= 0 {
		res.DOF, res.PValue = 0, 1
		return res
	}
	res.Corrected = yates && res.DOF == 1
	total := float64(t.NRef + t.NCur)
	rows := [2]float64{float64(t.NRef), float64(t.NCur)}
	for r, obs := range [2][]float64{ref, cur} {
		for i := range obs {
			e := rows[r] * (ref[i] + cur[i]) / total
			o := obs[i]
			if res.Corrected {
				diff := e - o
				o += math.Copysign(min(0.5, math.Abs(diff)), diff)
			}
			res.Statistic += (o - e) * (o - e) / e
		}
	}
	res.PValue = chiSquareSF(res.Statistic, res.DOF)
	return res
}

// GoodnessOfFit is the chi-squared goodness-of-fit test of the current
// counts against expected counts in the reference proportions scaled to
// the current total (ref_i/n_ref·n_cur), matching
// scipy.stats.chisquare(cur, f_exp). Cells empty in both samples are left
// out; DOF is the number of remaining cells minus 1. A category unseen in
// the reference has expected count 0, so, as in scipy, Statistic is +Inf
// and PValue 0 whenever Unseen > 0.
func (t Table) GoodnessOfFit() ChiSquareResult {
	ref, cur := t.nonEmptyCells()
	res := ChiSquareResult{Cells: len(ref), DOF: len(ref) - 1, Unseen: t.unseen(), Counts: t.Counts}
	if res.DOF <= 0 {
		res.DOF, res.PValue = 0, 1
		return res
	}
	nr, nc := float64(t.NRef), float64(t.NCur)
	for i := range ref {
		e := ref[i] / nr * nc
		d := cur[i] - e
		res.Statistic += d * d / e
	}
	res.PValue = chiSquareSF(res.Statistic, res.DOF)
	return res
}

// nonEmptyCells returns the counts of the cells not empty in both samples.
func (t Table) nonEmptyCells() (ref, cur []float64) {
	for i := range t.Ref {
		if t.Ref[i] != 0 || t.Cur[i] != 0 {
			ref = append(ref, float64(t.Ref[i]))
			cur = append(cur, float64(t.Cur[i]))
		}
	}
	return ref, cur
}

func (t Table) unseen() int {
	n := 0
	for i := range t.Ref {
		if t.Ref[i] == 0 && t.Cur[i] != 0 {
			n++
		}
	}
	return n
}

func chiSquareSF(x float64, dof int) float64 {
	if math.IsInf(x, 1) {
		return 0
	}
	return distuv.ChiSquared{K: float64(dof)}.Survival(x)
}
