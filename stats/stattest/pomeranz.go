package stattest

import "math"

// pomeranzCDF is P(D_n <= x) by Pomeranz's (1974) recursion, for n <= 140.
// Row i of a (2n+2)-row table is the convolution of row i-1 with one of
// three truncated Poisson weight sequences; only the band of possibly
// non-zero entries of two rows is kept, with power-of-two rescaling against
// underflow, and the answer is n! times the last entry.
func pomeranzCDF(n int, x float64) float64 {
	fn := float64(n)
	t := fn * x
	ll := int(math.Floor(t))
	f := t - float64(ll)
	g := min(f, 1.0-f)
	ceilf, roundf := 0, 0
	if f > 0 {
		ceilf = 1
	}
	if f > 0.5 {
		roundf = 1
	}
	np := 2 * (ll + 1)
	gp, g2p, g12p := poissonWeights(g, fn, np)
	v0 := make([]float64, np)
	v1 := make([]float64, np)
	v1[0] = 1
	v0s, v1s := 0, 0
	expnt := 0
	j1, _ := pomeranzBand(0, n, ll, ceilf, roundf)
	for i := 1; i < 2*n+2; i++ {
		k1 := j1
		v0, v1 = v1, v0
		v0s, v1s = v1s, v0s
		clear(v1)
		var j2 int
		j1, j2 = pomeranzBand(i, n, ll, ceilf, roundf)
		pw := g12p
		switch {
		case i == 1 || i == 2*n+1:
			pw = gp
		case i%2 == 1:
			pw = g2p
		}
		ln2 := j2 - k1 + 1
		if ln2 <= 0 {
			continue
		}
		src := v0[k1-v0s : min(k1-v0s+ln2, len(v0))] // numpy slices stop at the end
		if peak := convolve(v1[:max(0, j2-j1+1)], src, pw, j1-k1, ln2); peak > 0 && peak < scaleDown {
			for c := range v1 {
				v1[c] *= scaleUp
			}
			expnt -= scaleExp
		}
		v1s = v0s + j1 - k1
	}
	return timesFactorial(v1[n-v1s], n, expnt)
}

// poissonWeights are (g/n)^m/m!, (2g/n)^m/m! and ((1-2g)/n)^m/m! for m
// below np: Poisson weights without their normalising factors.
func poissonWeights(g, fn float64, np int) (gp, g2p, g12p []float64) {
	gp = make([]float64, np)
	g2p = make([]float64, np)
	g12p = make([]float64, np)
	gp[0], g2p[0], g12p[0] = 1, 1, 1
	for m := 1; m < np; m++ {
		fm := float64(m)
		gp[m] = gp[m-1] * (g / fn) / fm
		g2p[m] = g2p[m-1] * (2 * g / fn) / fm
		g12p[m] = g12p[m-1] * ((1 - 2*g) / fn) / fm
	}
	return gp, g2p, g12p
}

// convolve sets dst[c] to entry start+c of the full convolution of src
// with pw[:ln], and returns the largest entry.
func convolve(dst, src, pw []float64, start, ln int) float64 {
	peak := 0.0
	for c := range dst {
		o := start + c
		s := 0.0
		for a := max(0, o-ln+1); a <= min(o, len(src)-1); a++ {
			s += src[a] * pw[o-a]
		}
		dst[c] = s
		peak = max(peak, s)
	}
	return peak
}

// timesFactorial is ans·2^expnt·n!, rescaled on the way against
// overflow.
func timesFactorial(ans float64, n, expnt int) float64 {
	for m := 1; m <= n; m++ {
		if math.Abs(ans) > scaleUp {
			ans *= scaleDown
			expnt += scaleExp
		}
		ans *= float64(m)
	}
	return math.Ldexp(ans, expnt)
}

// pomeranzBand is the range [j1, j2] of row i that can be non-zero.
func pomeranzBand(i, n, ll, ceilf, roundf int) (int, int) {
	var j1, j2 int
	if i == 0 {
		j1, j2 = -ll-ceilf-1, ll+ceilf-1
	} else {
		half, odd := (i+1)/2, (i+1)%2
		switch {
		case odd == 0 && half == n+1:
			j1, j2 = n-ll-ceilf-1, n+ll+ceilf-1
		case odd == 0:
			j1, j2 = half-1-ll-roundf-1, half+ll-1+ceilf-1
		default:
			j1, j2 = half-1-ll-1, half+ll+roundf-1
		}
	}
	return max(j1+2, 0), min(j2, n)
}
