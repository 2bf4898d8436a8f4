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
	Counts
}

// JensenShannon compares the reference and current proportions of the
// cells. Empty cells need no smoothing (0·log 0 = 0), and a category
// unseen in the reference is an ordinary cell with p = 0.
func (t Table) JensenShannon() JSResult {
	p, q := t.proportions()
	var left, right float64
	for i := range p {
		m := (p[i] + q[i]) / 2.0
		left += relEntr(p[i], m)
		right += relEntr(q[i], m)
	}
	div := (left + right) / math.Ln2 / 2.0
	return JSResult{Divergence: div, Distance: math.Sqrt(div), Counts: t.Counts}
}

// relEntr is x·log(x/y), 0 for x = 0 (scipy.special.rel_entr for y > 0).
func relEntr(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(x/y)
}

// DistanceResult is a distance between the reference and the current
// distribution.
type DistanceResult struct {
	// Value is the distance.
	Value float64
	Counts
}

// Hellinger is the Hellinger distance of the cell proportions,
// sqrt(Σ (√p_i - √q_i)² / 2), in [0, 1]: 0 for equal proportions, 1 for
// disjoint support. scipy has no function for it; the golden file checks
// it against the same NumPy formula. Written as a sum of squares it keeps
// full relative accuracy for nearly equal distributions, where the
// equivalent sqrt(1 - Σ √(p_i q_i)) cancels.
func (t Table) Hellinger() DistanceResult {
	p, q := t.proportions()
	s := 0.0
	for i := range p {
		d := math.Sqrt(p[i]) - math.Sqrt(q[i])
		s += d * d
	}
	return DistanceResult{Value: math.Sqrt(0.5 * s), Counts: t.Counts}
}
