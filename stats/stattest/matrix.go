package stattest

import "math"

// matrix is a dense square row-major matrix for durbinCDF.
type matrix struct {
	n int
	a []float64
}

func newMatrix(n int) matrix { return matrix{n: n, a: make([]float64, n*n)} }

func identity(n int) matrix {
	m := newMatrix(n)
	for i := range n {
		m.a[i*n+i] = 1
	}
	return m
}

func (m matrix) at(i, j int) float64     { return m.a[i*m.n+j] }
func (m matrix) set(i, j int, v float64) { m.a[i*m.n+j] = v }

// mul stores x·y in dst, which must not alias x or y. The i-k-j loop order
// reads rows of y contiguously.
func mul(dst, x, y matrix) {
	n := dst.n
	clear(dst.a)
	for i := range n {
		row := dst.a[i*n : (i+1)*n]
		for k := range n {
			xik := x.a[i*n+k]
			if xik == 0 {
				continue
			}
			yr := y.a[k*n : (k+1)*n]
			for j, v := range yr {
				row[j] += xik * v
			}
		}
	}
}

// powf is b^e for e >= 0. math.Pow takes integral powers by repeated
// squaring, whose relative error grows like e·2^-53; for large e, exp(e·log b)
// keeps it near |e·log b|·2^-53 instead, which is small whenever the result
// does not underflow.
func powf(b, e float64) float64 {
	if e <= 256 || b <= 0 {
		return math.Pow(b, e)
	}
	return math.Exp(e * math.Log(b))
}
