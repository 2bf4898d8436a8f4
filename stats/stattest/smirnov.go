package stattest

import "math"

// smirnovSF is P(D+_n >= x) for the one-sided one-sample Kolmogorov-Smirnov
// statistic (scipy.special.smirnov), by the Birnbaum-Tingey sum
//
//	x · Σ_{v=0}^{⌊n(1-x)⌋} C(n,v) (x+v/n)^(v-1) (1-x-v/n)^(n-v)
//
// whose terms are all positive. Term v is the binomial probability of v
// successes in n trials of probability p = x+v/n, divided by p. That
// probability is evaluated by Loader's saddle-point form (see binomPMF), so
// each term is accurate to about 1e-14 relative whatever n is, where a
// plain sum of logarithms would lose n·2^-53 to the cancellation between
// log C(n,v) and the powers. The sum stops once the remaining terms cannot
// change it. kolmogorovSF calls it only where x >= 0.5 or n·x² >= 2.2,
// where scipy also takes this lower sum.
func smirnovSF(n int, x float64) float64 {
	fn := float64(n)
	switch {
	case n == 1:
		return 1 - x
	case x <= 0:
		return 1
	case x >= 1:
		return 0
	}
	// n·x = nxhi + nxlo exactly; floor and fractional part alpha.
	nxhi := fn * x
	nxlo := math.FMA(fn, x, -nxhi)
	fl := math.Floor(nxhi)
	alpha := (nxhi - fl) + nxlo
	if alpha < 0 {
		fl--
		alpha++
	} else if alpha >= 1 {
		fl++
		alpha--
	}
	nxfl := int(fl)
	last := n - nxfl - 1 // last v with 1-x-v/n > 0
	if nxfl == 0 || (nxfl == 1 && alpha == 0) {
		return 1 - x*powf(1+x, fn-1)
	}
	if -2*fn*x*x < -7.451332191019412076235e2 { // log of the smallest subnormal
		return 0
	}
	if nxfl >= n-1 {
		return powf(1-x, fn)
	}
	if n > 1000000 {
		logp := -math.Pow(6.0*fn*x+1, 2) / 18.0 / fn
		if logp < -math.Ln2 {
			return math.Exp(logp)
		}
		return 1 + math.Expm1(logp)
	}
	sum := math.Exp(fn*math.Log1p(-x)) / x // v = 0
	const eps = 0x1p-52
	for v := 1; v <= last; v++ {
		// n·p and n·(1-p) for p = x + v/n, from the exact split
		// n·x = nxfl + alpha, so that 1-p keeps its accuracy near 0.
		np := float64(v+nxfl) + alpha
		nq := float64(n-v-nxfl) - alpha
		term := binomPMF(n, v, np, nq) * fn / np
		sum += term
		if term != 0 {
			if 4*float64(last+1-v)*term < eps*sum && v != last {
				break
			}
		} else if v > n/2 {
			break
		}
	}
	return x * sum
}
