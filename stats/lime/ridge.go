package lime

import (
	"fmt"

	"github.com/vigilhq/vigil/stats/solver"
)

// linearFit is a fitted linear model over some columns.
type linearFit struct {
	coef      []float64
	intercept float64
}

// ridge fits weighted ridge regression with an unpenalised intercept on
// columns cols of x, as scikit-learn's Ridge(alpha, fit_intercept=True)
// with sample_weight: centre on the weighted means, solve
// (XcᵀWXc + αI)β = XcᵀWyc, intercept ȳ − x̄·β.
func ridge(x [][]float64, y, w []float64, cols []int, alpha float64) (linearFit, error) {
	p := len(cols)
	sw := 0.0
	xm := make([]float64, p)
	ym := 0.0
	for i, r := range x {
		sw += w[i]
		ym += w[i] * y[i]
		for j, c := range cols {
			xm[j] += w[i] * r[c]
		}
	}
	if !(sw > 0) {
		return linearFit{}, fmt.Errorf("%w: the kernel weights sum to %v", ErrInvalid, sw)
	}
	ym /= sw
	for j := range xm {
		xm[j] /= sw
	}
	// XcᵀWXc is symmetric: its upper triangle is summed, then mirrored.
	a := make([]float64, p*p)
	b := make([]float64, p)
	xc := make([]float64, p)
	for i, r := range x {
		for j, c := range cols {
			xc[j] = r[c] - xm[j]
		}
		yc := y[i] - ym
		for j, xj := range xc {
			wx := w[i] * xj
			b[j] += wx * yc
			row := a[j*p : (j+1)*p]
			for k := j; k < p; k++ {
				row[k] += wx * xc[k]
			}
		}
	}
	for j := range p {
		for k := j + 1; k < p; k++ {
			a[k*p+j] = a[j*p+k]
		}
		a[j*p+j] += alpha
	}
	// A column without a pivot (alpha 0 and collinear columns) keeps
	// coefficient 0.
	coef, _ := solver.Solve(a, b, p)
	f := linearFit{coef: coef, intercept: ym}
	for j := range p {
		f.intercept -= xm[j] * coef[j]
	}
	return f, nil
}

// predict returns the fit's output for row r.
func (f linearFit) predict(r []float64, cols []int) float64 {
	s := f.intercept
	for j, c := range cols {
		s += f.coef[j] * r[c]
	}
	return s
}

// score returns the weighted R² of the fit, as scikit-learn's r2_score
// with sample_weight (1 when the labels are constant and fitted exactly).
func (f linearFit) score(x [][]float64, y, w []float64, cols []int) float64 {
	sw, ym := 0.0, 0.0
	for i := range y {
		sw += w[i]
		ym += w[i] * y[i]
	}
	ym /= sw
	num, den := 0.0, 0.0
	for i, r := range x {
		d := y[i] - f.predict(r, cols)
		num += w[i] * d * d
		den += w[i] * (y[i] - ym) * (y[i] - ym)
	}
	if den == 0 {
		if num == 0 {
			return 1
		}
		return 0
	}
	return 1 - num/den
}
