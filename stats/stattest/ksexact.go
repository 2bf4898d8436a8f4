package stattest

import "math"

// ksExact is the exact p-value of the two-sample statistic D = h/lcm(n1, n2)
// (g = gcd(n1, n2)), following scipy's _attempt_exact_2kssamp: false when
// the computation cannot be trusted, and the caller falls back to the
// asymptotic p-value.
func ksExact(n1, n2, g int, h int64, alt Alternative) (float64, bool) {
	if h == 0 {
		return 1, true
	}
	var p float64
	switch {
	case alt == TwoSided && n1 == n2:
		p = outsideSquare(n1, h)
	case alt == TwoSided:
		p = outsideBand(n1, n2, g, h)
	case n1 == n2:
		p = 1.0
		for j := range h {
			p *= float64(int64(n1)-j) / (float64(n1) + float64(j) + 1.0)
		}
	default:
		var ok bool
		if p, ok = oneSidedExact(n1, n2, g, h); !ok {
			return math.NaN(), false
		}
	}
	if !(p >= 0 && p <= 1) {
		return p, false
	}
	return p, true
}

// outsideSquare is P(D_{n,n} >= h/n) for two samples of equal size n, by
// the reflection formula 2·Σ_k (-1)^(k+1) C(2n, n-kh)/C(2n, n), evaluated
// from the innermost term outward as nested products so that no
// alternating sum cancels (scipy's _compute_prob_outside_square).
func outsideSquare(n int, h int64) float64 {
	nn := int64(n)
	p := 0.0
	for k := nn / h; k >= 0; k-- {
		a := 1.0
		for j := range h {
			a = float64(nn-k*h-j) * a / float64(nn+k*h+j+1)
		}
		p = a * (1.0 - p)
	}
	return 2 * p
}

// outsideBand is the two-sided exact p-value for unequal sizes: the
// probability that a uniformly random lattice path from (0,0) to (m,n)
// leaves the band |x/m - y/n| < h/lcm(m,n). It propagates, column by
// column, the probability of having already left the band, so every value
// stays in [0,1] (Hodges 1958 inside method as reformulated by Viehmann
// 2021; scipy's _compute_outer_prob_inside_method). Only the window of rows
// inside the band is kept.
func outsideBand(m, n, g int, h int64) float64 {
	if m < n {
		m, n = n, m
	}
	mg, ng := int64(m/g), int64(n/g)
	nn := int64(n)
	minj, maxj := int64(0), min(ceilDiv(h, mg), nn+1)
	curlen := maxj - minj
	a := make([]float64, min(2*maxj+2, nn+1))
	for i := range a {
		a[i] = 1
	}
	for i := minj; i < maxj; i++ {
		a[i] = 0
	}
	for i := int64(1); i <= int64(m); i++ {
		lastmin, lastlen := minj, curlen
		minj = min(max(floorDiv(ng*i-h, mg)+1, 0), nn)
		maxj = min(ceilDiv(ng*i+h, mg), nn+1)
		if maxj <= minj {
			return 1.0
		}
		val := 1.0
		if minj == 0 {
			val = 0.0
		}
		fi := float64(i)
		for jj := range maxj - minj {
			j := float64(jj + minj)
			val = (a[jj+minj-lastmin]*fi + val*j) / (fi + j)
			a[jj] = val
		}
		curlen = maxj - minj
		for k := curlen; k < lastlen; k++ {
			a[k] = 1
		}
	}
	return a[maxj-minj-1]
}

// oneSidedExact is P(D+ >= h/lcm) for unequal sizes: the probability that a
// uniformly random lattice path from (0,0) to (m,n) reaches the line
// m·y <= n·x - h·g. scipy counts such paths with floating binomial
// coefficients and gives up (falling back to the asymptotic formula) when
// C(m+n, n) overflows a float64; this function gives up in the same case,
// but propagates probabilities column by column instead of counts, so the
// values it returns are accurate where scipy's alternating sums may not be.
func oneSidedExact(m, n, g int, h int64) (float64, bool) {
	if lchoose(m+n, n) > math.Log(math.MaxFloat64) {
		return 0, false
	}
	if m < n {
		m, n = n, m
	}
	mg, ng := int64(m/g), int64(n/g)
	// Path at (x, y): x steps in the larger sample, y in the smaller. It
	// has crossed when mg·y <= ng·x - h, i.e. y <= (ng·x - h)/mg. q[y] is
	// the probability of reaching (x, y) without having crossed, under the
	// uniform path measure. The mass that enters the crossed region is
	// summed as it enters, so small p-values keep full relative accuracy.
	q := make([]float64, n+1)
	crossed := 0.0
	fm, fn := float64(m), float64(n)
	for x := int64(0); x <= int64(m); x++ {
		lim := floorDiv(ng*x-h, mg) // rows <= lim have crossed
		for y := int64(0); y <= int64(n); y++ {
			var v float64
			switch {
			case x == 0 && y == 0:
				v = 1
			default:
				// Arrive from the left (an x step) or from below (a y step),
				// each weighted by its step probability given the position.
				if x > 0 {
					v += q[y] * (fm - float64(x-1)) / (fm + fn - float64(x-1+y))
				}
				if y > 0 {
					v += q[y-1] * (fn - float64(y-1)) / (fm + fn - float64(x+y-1))
				}
			}
			if y <= lim {
				crossed += v
				v = 0
			}
			q[y] = v
		}
	}
	return crossed, true
}

// lchoose is log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }
