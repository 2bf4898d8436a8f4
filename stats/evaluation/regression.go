package evaluation

import "math"

// checkRegression requires numeric y_true and y_pred. scikit-learn would
// also coerce numeric strings ("1.5"); Vigil treats strings as class labels
// and refuses them here.
func checkRegression(req *Request, metric string) error {
	if req.YTrue.isStr {
		return metricErr(metric, "y_true", "regression metrics need numbers, got strings")
	}
	return nil
}

// regression computes mse, mae, rmse and r2 in NumPy's order of operations
// (see sum.go): mse = mean((t-p)**2), mae = mean(|p-t|), rmse = sqrt(mse),
// r2 with force_finite=True.
type regression struct {
	t, p []float64
}

func (r regression) mse() float64 {
	return pairwiseSumOf(len(r.t), func(dst []float64, off int) {
		for j := range dst {
			d := r.t[off+j] - r.p[off+j]
			dst[j] = d * d
		}
	}) / float64(len(r.t))
}

func (r regression) mae() float64 {
	return pairwiseSumOf(len(r.t), func(dst []float64, off int) {
		for j := range dst {
			dst[j] = math.Abs(r.p[off+j] - r.t[off+j])
		}
	}) / float64(len(r.t))
}

func (r regression) rmse() float64 { return math.Sqrt(r.mse()) }

// r2 is r2_score with force_finite=True: 1.0 for a perfect prediction even
// of a constant y_true, 0.0 for an imperfect prediction of a constant
// y_true. "Constant" means the NumPy mean equals every value exactly.
// Fewer than two rows is an error (scikit-learn returns NaN).
func (r regression) r2() (float64, error) {
	n := len(r.t)
	if n < 2 {
		return 0, metricErr(R2, "y_true", "r2 is not well-defined with fewer than two samples (got %d, want at least 2)", n)
	}
	num := pairwiseSumOf(n, func(dst []float64, off int) {
		for j := range dst {
			d := r.t[off+j] - r.p[off+j]
			dst[j] = d * d
		}
	})
	m := mean(r.t)
	den := pairwiseSumOf(n, func(dst []float64, off int) {
		for j := range dst {
			d := r.t[off+j] - m
			dst[j] = d * d
		}
	})
	switch {
	case num == 0:
		return 1, nil
	case den == 0:
		return 0, nil
	}
	return 1 - num/den, nil
}
