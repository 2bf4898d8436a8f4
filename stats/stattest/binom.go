package stattest

import "math"

// binomPMF is the binomial probability of k successes in n trials whose
// expected successes and failures are np and nq (np + nq = n), for
// 0 < k < n. It uses Loader's (2000) saddle-point form
//
//	exp(δ(n) - δ(k) - δ(n-k) - D(k, np) - D(n-k, nq)) · sqrt(n / (2π k (n-k)))
//
// with δ the error of Stirling's formula for log m! and
// D(k, M) = k log(k/M) + M - k, both computed without cancellation, so the
// result keeps about 1e-14 relative accuracy for any n.
func binomPMF(n, k int, np, nq float64) float64 {
	lc := stirlingErr(n) - stirlingErr(k) - stirlingErr(n-k) - devianceTerm(float64(k), np) - devianceTerm(float64(n-k), nq)
	return math.Exp(lc) * math.Sqrt(float64(n)/(2*math.Pi*float64(k)*float64(n-k)))
}

// devianceTerm is k·log(k/M) + M - k, by its series in (k-M)/(k+M) when k
// and M are close (where the direct form cancels).
func devianceTerm(k, m float64) float64 {
	if math.Abs(k-m) >= 0.1*(k+m) {
		return k*math.Log(k/m) + m - k
	}
	v := (k - m) / (k + m)
	s := (k - m) * v
	e := 2 * k * v
	v2 := v * v
	for j := 3.0; ; j += 2 {
		e *= v2
		s1 := s + e/j
		if s1 == s {
			return s
		}
		s = s1
	}
}

// smallStirlingErr holds stirlingErr(m) for m < 16, from log m! summed
// term by term.
var smallStirlingErr = func() [16]float64 {
	var t [16]float64
	logFact := 0.0
	for m := 1; m < 16; m++ {
		logFact += math.Log(float64(m))
		fm := float64(m)
		t[m] = logFact - (fm+0.5)*math.Log(fm) + fm - 0.5*math.Log(2*math.Pi)
	}
	return t
}()

// stirlingErr is log m! - log(sqrt(2πm) (m/e)^m), by the Stirling series
// 1/(12m) - 1/(360m³) + 1/(1260m⁵) - ... for m >= 16, with fewer terms as
// m grows.
func stirlingErr(m int) float64 {
	if m < 16 {
		return smallStirlingErr[m]
	}
	const s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
	fm := float64(m)
	r2 := 1 / (fm * fm)
	switch {
	case m > 500:
		return (s0 - s1*r2) / fm
	case m > 80:
		return (s0 - (s1-s2*r2)*r2) / fm
	case m > 35:
		return (s0 - (s1-(s2-s3*r2)*r2)*r2) / fm
	}
	return (s0 - (s1-(s2-(s3-s4*r2)*r2)*r2)*r2) / fm
}
