package stattest

import "math"

// Wasserstein is the Wasserstein-1 (earth mover's) distance between the
// two empirical distributions, ∫ |F_ref(x) - F_cur(x)| dx, matching
// scipy.stats.wasserstein_distance(ref, cur) (unweighted). It is one merge
// of the sorted samples: between consecutive distinct pooled values the
// CDFs are constant, evaluated as i/n_ref and j/n_cur as scipy does. All
// terms are non-negative, so the sum has no cancellation; it is
// compensated (Neumaier) so that a million terms add no visible error.
//
// Wasserstein is scipy.stats.wasserstein_distance (unweighted): the
// integral of |F_ref - F_cur|.
func (d Numeric) Wasserstein() DistanceResult {
	f1, f2 := float64(d.Ref.Len()), float64(d.Cur.Len())
	var sum, comp float64
	m := merge{a: d.Ref.Sorted, b: d.Cur.Sorted}
	for m.next() {
		next := m.peek()
		if math.IsInf(next, 1) {
			break
		}
		term := math.Abs(float64(m.i)/f1-float64(m.j)/f2) * (next - m.v)
		s := sum + term
		if math.Abs(sum) >= math.Abs(term) {
			comp += (sum - s) + term
		} else {
			comp += (term - s) + sum
		}
		sum = s
	}
	return DistanceResult{Value: sum + comp, Counts: d.Counts()}
}
