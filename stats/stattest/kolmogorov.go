package stattest

import "math"

// kolmogorovSF is P(D_n >= x) for the one-sample two-sided
// Kolmogorov-Smirnov statistic D_n of a sample of size n: scipy's
// kstwo.sf(x, n), which ks_2samp's asymptotic mode evaluates at
// n = round(n1·n2/(n1+n2)). The method for each (n, x) region is the one
// Simard and L'Ecuyer (2011) recommend and scipy uses: Ruben-Gambino closed
// forms at the ends, the Durbin matrix (Marsaglia-Tsang-Wang) or Pomeranz
// recursion for small n·x², twice the one-sided Smirnov tail where the
// two tails cannot overlap or the overlap is negligible, and the Pelz-Good
// expansion for large n.
func kolmogorovSF(n int, x float64) float64 {
	fn := float64(n)
	if x >= 1 || x <= 0.5/fn {
		if x >= 1 {
			return 0
		}
		return 1
	}
	t := fn * x
	if t <= 1.0 {
		var p float64
		if n <= 140 {
			p = 1
			for i := 1; i <= n; i++ {
				p *= float64(i) * (1.0 / fn) * (2*t - 1)
			}
		} else {
			p = math.Exp(logFactorialOverPower(fn) + fn*math.Log(2*t-1))
		}
		return clamp01(1 - p)
	}
	if t >= fn-1 {
		return clamp01(2 * powf(1.0-x, fn))
	}
	if x >= 0.5 {
		return clamp01(2 * smirnovSF(n, x))
	}
	nx2 := t * x
	if n <= 140 {
		switch {
		case nx2 <= 0.754693:
			return clamp01(1 - clamp01(durbinCDF(n, x)))
		case nx2 <= 4:
			return clamp01(1 - clamp01(pomeranzCDF(n, x)))
		}
		return clamp01(2 * smirnovSF(n, x))
	}
	switch {
	case nx2 >= 370:
		return 0
	case nx2 >= 2.2:
		return clamp01(2 * smirnovSF(n, x))
	case n <= 100000 && fn*math.Pow(x, 1.5) <= 1.4:
		return clamp01(1 - clamp01(durbinCDF(n, x)))
	}
	return clamp01(1 - pelzGoodCDF(n, x))
}

// stirling holds B_2j/(2j(2j-1)) for j = 8 down to 1, the coefficients of
// the Stirling series of log Γ.
var stirling = [...]float64{-2.955065359477124183e-2, 6.4102564102564102564e-3,
	-1.9175269175269175269e-3, 8.4175084175084175084e-4,
	-5.952380952380952381e-4, 7.9365079365079365079e-4,
	-2.7777777777777777778e-3, 8.3333333333333333333e-2}

// logFactorialOverPower is log(n!/n^n) by the Stirling series, with the
// n·log n terms cancelled before evaluation.
func logFactorialOverPower(n float64) float64 {
	r := 1.0 / n
	s := 0.0
	for _, c := range stirling {
		s = s*(r/n) + c
	}
	return math.Log(n)/2 - n + math.Log(2*math.Pi)/2 + r*s
}

// scale is 2^128, the factor by which the matrix and recursion methods
// rescale intermediate values to stay inside the float64 range.
const scaleExp = 128

var (
	scaleUp   = math.Ldexp(1, scaleExp)
	scaleDown = math.Ldexp(1, -scaleExp)
)

// durbinCDF is P(D_n <= d) from Durbin's (1968) matrix formula: with
// d = (k-h)/n, it is n!/n^n times the (k,k) entry of H^n for a
// (2k-1)×(2k-1) matrix H, the power taken by repeated squaring with
// separate power-of-two exponents (Marsaglia, Tsang and Wang 2003).
func durbinCDF(n int, d float64) float64 {
	fn := float64(n)
	nd := fn * d
	if nd <= 0.5 {
		return 0
	}
	k := int(math.Ceil(nd))
	h := float64(k) - nd
	m := 2*k - 1
	v := make([]float64, m)
	w := make([]float64, m)
	fac := 1.0
	for j := 1; j <= m; j++ {
		w[j-1] = fac
		fac /= float64(j)
		v[j-1] = (1.0 - math.Pow(h, float64(j))) * fac
	}
	tt := math.Pow(max(2*h-1.0, 0), float64(m)) - 2*math.Pow(h, float64(m))
	v[m-1] = (1.0 + tt) * fac

	hm := newMatrix(m)
	for i := 1; i < m; i++ {
		for r := i - 1; r < m; r++ {
			hm.set(r, i, w[r-(i-1)])
		}
	}
	for r := range m {
		hm.set(r, 0, v[r])
	}
	for c := range m {
		hm.set(m-1, c, v[m-1-c])
	}
	pw := identity(m)
	tmp := newMatrix(m)
	expnt, hexp := 0, 0
	for nn := n; nn > 0; nn /= 2 {
		if nn%2 == 1 {
			mul(tmp, pw, hm)
			pw, tmp = tmp, pw
			expnt += hexp
		}
		mul(tmp, hm, hm)
		hm, tmp = tmp, hm
		hexp *= 2
		if math.Abs(hm.at(k-1, k-1)) > scaleUp {
			for i := range hm.a {
				hm.a[i] /= scaleUp
			}
			hexp += scaleExp
		}
	}
	p := pw.at(k-1, k-1)
	for i := 1; i <= n; i++ {
		p = float64(i) * p / fn
		if math.Abs(p) < scaleDown {
			p *= scaleUp
			expnt -= scaleExp
		}
	}
	return math.Ldexp(p, expnt)
}

// pelzGoodCDF is the Pelz-Good (1976) approximation of P(D_n <= x): the
// Li-Chien/Korolyuk expansion K0 + K1/√n + K2/n + K3/n^1.5 in z = x√n,
// rewritten through Jacobi theta identities into sums that converge fast
// for small z.
func pelzGoodCDF(n int, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	const pi2 = math.Pi * math.Pi
	const pi4, pi6 = pi2 * pi2, pi2 * pi2 * pi2
	fn := float64(n)
	z := math.Sqrt(fn) * x
	z2, z3, z4, z6 := z*z, z*z*z, z*z*z*z, z*z*z*z*z*z
	qlog := -pi2 / 8 / z2
	if qlog < -708 {
		return 0
	}
	q := math.Exp(qlog)
	k1a, k1b := -z2, pi2/4
	k2a := 6*z6 + 2*z4
	k2b := (2*z4 - 5*z2) * pi2 / 4
	k2c := pi4 * (1 - 2*z2) / 16
	k3d := pi6 * (5 - 30*z2) / 64
	k3c := pi4 * (-60*z2 + 212*z4) / 16
	k3b := pi2 * (135*z4 - 96*z6) / 4
	k3a := -30*z6 - 90*math.Pow(z, 8)

	var s [4]float64
	maxk := int(math.Ceil(16 * z / math.Pi))
	for k := maxk; k >= 1; k-- {
		m := float64(2*k - 1)
		m2 := m * m
		m4, m6 := m2*m2, m2*m2*m2
		qp := math.Pow(q, float64(8*k))
		c := [4]float64{1.0, k1a + k1b*m2, k2a + k2b*m2 + k2c*m4, k3a + k3b*m2 + k3c*m4 + k3d*m6}
		for i := range s {
			s[i] = s[i]*qp + c[i]
		}
	}
	sqrt2pi := math.Sqrt(2 * math.Pi)
	den := [4]float64{z, 6 * z4, 72 * math.Pow(z, 7), 6480 * math.Pow(z, 10)}
	for i := range s {
		s[i] = s[i] * q * sqrt2pi / den[i]
	}
	q = math.Exp(-pi2 / 2 / z2)
	var e2, e3 float64
	sqrt3z := math.Sqrt(3) * z
	for k := maxk; k >= 1; k-- {
		kk := float64(k * k)
		qk := math.Pow(q, kk)
		kpi := math.Pi * float64(k)
		e2 += kk * qk
		e3 += (sqrt3z + kpi) * (sqrt3z - kpi) * kk * qk
	}
	s[2] += e2 * pi2 * sqrt2pi / (-36 * z3)
	s[3] += e3 * pi2 * sqrt2pi / (216 * z6)
	sum := 0.0
	for i := range s {
		sum += s[i] / math.Pow(fn, float64(i)/2.0)
	}
	return sum
}
