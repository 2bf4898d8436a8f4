// Package solver solves small dense linear systems for the maths tree
// (the least-squares fits of stats/shap's sampled Kernel SHAP and of
// stats/lime's ridge regression).
//
// It imports nothing of Vigil: the maths tree stands alone.
package solver

import "math"

// Solve solves the p×p system a·x = b (a row-major, both overwritten) by
// Gaussian elimination with partial pivoting. A column without a non-zero
// pivot (a singular system) keeps x 0 there and is listed in singular.
func Solve(a, b []float64, p int) (x []float64, singular []int) {
	for col := range p {
		piv := col
		for r := col + 1; r < p; r++ {
			if math.Abs(a[r*p+col]) > math.Abs(a[piv*p+col]) {
				piv = r
			}
		}
		if a[piv*p+col] == 0 {
			singular = append(singular, col)
			continue
		}
		if piv != col {
			for j := range p {
				a[col*p+j], a[piv*p+j] = a[piv*p+j], a[col*p+j]
			}
			b[col], b[piv] = b[piv], b[col]
		}
		for r := col + 1; r < p; r++ {
			f := a[r*p+col] / a[col*p+col]
			for j := col; j < p; j++ {
				a[r*p+j] -= f * a[col*p+j]
			}
			b[r] -= f * b[col]
		}
	}
	x = make([]float64, p)
	for r := p - 1; r >= 0; r-- {
		if a[r*p+r] == 0 {
			continue
		}
		s := b[r]
		for j := r + 1; j < p; j++ {
			s -= a[r*p+j] * x[j]
		}
		x[r] = s / a[r*p+r]
	}
	return x, singular
}
