package shap

import (
	"fmt"
	"math"
)

// A LinearModel is coefficients and an intercept over the features; Link
// ("identity" or "logit") says what turns the margin into the prediction.
// Values are always of the margin (log-odds for logit), as
// shap.LinearExplainer's.
type LinearModel struct {
	Coefficients []float64
	Intercept    float64
	Link         string
}

// Margin returns the model's margin for row x.
func (m *LinearModel) Margin(x []float64) float64 {
	s := m.Intercept
	for i, c := range m.Coefficients {
		s += c * x[i]
	}
	return s
}

// Mean returns the column means of rows (each of width n).
func Mean(rows [][]float64, n int) ([]float64, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: the background set is empty", ErrInvalid)
	}
	mean := make([]float64, n)
	for ri, r := range rows {
		if len(r) != n {
			return nil, fmt.Errorf("%w: background row %d has %d features, want %d", ErrInvalid, ri, len(r), n)
		}
		for i, v := range r {
			mean[i] += v
		}
	}
	for i := range mean {
		mean[i] /= float64(len(rows))
	}
	return mean, nil
}

// Linear returns the SHAP values of row x: coefficient × (x − mean), with
// base value intercept + coefficients · mean (features independent, the
// interventional case).
func Linear(m *LinearModel, mean, x []float64) (Result, error) {
	n := len(m.Coefficients)
	if len(x) != n || len(mean) != n {
		return Result{}, fmt.Errorf("%w: the row has %d features and the mean %d, the model reads %d", ErrInvalid, len(x), len(mean), n)
	}
	r := Result{Values: make([]float64, n), Base: m.Intercept, Output: m.Margin(x)}
	for i, c := range m.Coefficients {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return Result{}, fmt.Errorf("%w: feature %d is not a finite number", ErrInvalid, i)
		}
		r.Values[i] = c * (x[i] - mean[i])
		r.Base += c * mean[i]
	}
	return r, r.Check(additivityTol)
}
