package stattest

import (
	"math"
	"testing"
)

// TestKSExactAgainstPathCount checks the exact p-values on every statistic
// of small sample sizes against a direct count of lattice paths: the
// fraction of the C(n1+n2, n1) orderings of the pooled sample whose
// ECDF difference reaches D (|difference| for two-sided tests).
func TestKSExactAgainstPathCount(t *testing.T) {
	for n1 := 1; n1 <= 13; n1++ {
		for n2 := 1; n2 <= 11; n2++ {
			g := gcd(n1, n2)
			lcm := int64(n1/g) * int64(n2)
			for h := int64(1); h <= lcm; h++ {
				for _, alt := range []Alternative{TwoSided, Greater} {
					// ok is false when rounding puts p just above 1: like
					// scipy, KS then falls back to the asymptotic p-value.
					got, ok := ksExact(n1, n2, g, h, alt)
					want := pathFraction(n1, n2, h*int64(g), alt == TwoSided)
					if (!ok && got <= 1) || math.Abs(got-want) > 1e-12*want {
						t.Fatalf("n1=%d n2=%d h=%d %v: got %.17g (ok %v), want %.17g", n1, n2, h, alt, got, ok, want)
					}
				}
			}
		}
	}
}

// pathFraction is the fraction of monotone paths from (0,0) to (n1,n2)
// that touch x·n2 - y·n1 >= k (or |x·n2 - y·n1| >= k when twoSided).
func pathFraction(n1, n2 int, k int64, twoSided bool) float64 {
	// all[x][y]: paths to (x,y); hit[x][y]: those that have touched.
	all := make([][]float64, n1+1)
	hit := make([][]float64, n1+1)
	for x := range all {
		all[x] = make([]float64, n2+1)
		hit[x] = make([]float64, n2+1)
	}
	for x := 0; x <= n1; x++ {
		for y := 0; y <= n2; y++ {
			if x == 0 && y == 0 {
				all[0][0] = 1
			} else {
				if x > 0 {
					all[x][y] += all[x-1][y]
					hit[x][y] += hit[x-1][y]
				}
				if y > 0 {
					all[x][y] += all[x][y-1]
					hit[x][y] += hit[x][y-1]
				}
			}
			d := int64(x)*int64(n2) - int64(y)*int64(n1)
			if d >= k || (twoSided && -d >= k) {
				hit[x][y] = all[x][y]
			}
		}
	}
	return hit[n1][n2] / all[n1][n2]
}
