package stattest

import "math"

// JSResult is the Jensen-Shannon divergence and distance of a Table, in
// bits (log base 2), so both lie in [0, 1].
type JSResult struct {
	// Divergence is (KL(p‖m) + KL(q‖m))/2 with m = (p+q)/2, in bits.
	Divergence float64
	// Distance is sqrt(Divergence): scipy.spatial.distance.jensenshannon
	// (p, q, base=2).
	Distance float64
	// Counts are the values used and the missing values removed.
	Counts
}

// JensenShannon compares the reference and current proportions of the
// cells. Empty cells need no smoothing (0·log 0 = 0), and a category
// unseen in the reference is an ordinary cell with p = 0.
//
// The sum is taken cell by cell, each cell's share
// p·ln(p/m) + q·ln(q/m) = m·[(1+δ)ln(1+δ) + (1-δ)ln(1-δ)], δ = (p-q)/(p+q),
// being non-negative; for |δ| <= 0.1 it is evaluated by its series
// m·Σ δ^(2k)/(k(2k-1)), with δ formed exactly from the integer counts. So
// the result keeps about 1e-15 relative accuracy even for nearly equal
// distributions, where scipy's two separate sums cancel (for a million vs
// a hundred thousand values from one distribution, scipy's divergence is
// off by about 3e-9 relative).
//
// JensenShannon is in bits (log base 2), so divergence and distance lie in
// [0, 1]. Distance = sqrt(Divergence) is
// scipy.spatial.distance.jensenshannon(p, q, base=2). Empty cells and
// categories absent from one sample need no smoothing.
func (t Table) JensenShannon() JSResult {
	js := t.sumCells(func(i int, p, q float64) float64 {
		return jsCell(p, q, t.Ref[i], t.Cur[i], t.NRef, t.NCur)
	})
	div := js / math.Ln2 / 2.0
	return JSResult{Divergence: div, Distance: math.Sqrt(div), Counts: t.Counts}
}

// jsCell is p·ln(p/m) + q·ln(q/m) with m = (p+q)/2, for p = a/nr and
// q = b/nc.
func jsCell(p, q float64, a, b, nr, nc int) float64 {
	ac, br := float64(a)*float64(nc), float64(b)*float64(nr) // exact below 2^53
	delta := (ac - br) / (ac + br)
	m := (p + q) / 2.0
	if math.IsNaN(delta) || math.Abs(delta) > 0.1 || ac >= 1<<53 || br >= 1<<53 {
		return relEntr(p, m) + relEntr(q, m)
	}
	d2 := delta * delta
	sum, pw := 0.0, 1.0
	for k := 1.0; k < 40; k++ {
		pw *= d2
		next := sum + pw/(k*(2*k-1))
		if next == sum {
			break
		}
		sum = next
	}
	return m * sum
}

// DistanceResult is a distance between the reference and the current
// distribution.
type DistanceResult struct {
	// Value is the distance.
	Value float64
	// Counts are the values used and the missing values removed.
	Counts
}

// Hellinger is the Hellinger distance of the cell proportions,
// sqrt(Σ (√p_i - √q_i)² / 2), in [0, 1]: 0 for equal proportions, 1 for
// disjoint support. scipy has no function for it; the golden file checks
// it against the same NumPy formula. Written as a sum of squares it keeps
// full relative accuracy for nearly equal distributions, where the
// equivalent sqrt(1 - Σ √(p_i q_i)) cancels.
//
// Hellinger is sqrt(Σ (√p - √q)²/2), in [0, 1]; SciPy has no such
// function, so the golden file evaluates this NumPy formula.
func (t Table) Hellinger() DistanceResult {
	s := t.sumCells(func(_ int, p, q float64) float64 {
		d := math.Sqrt(p) - math.Sqrt(q)
		return d * d
	})
	return DistanceResult{Value: math.Sqrt(0.5 * s), Counts: t.Counts}
}

// relEntr is x·log(x/y), 0 for x = 0 (scipy.special.rel_entr for y > 0).
func relEntr(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(x/y)
}
