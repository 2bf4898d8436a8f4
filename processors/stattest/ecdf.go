package stattest

import "math"

// extremes are the largest and smallest values of F_ref(x) - F_cur(x) over
// the pooled sample, with scipy's locations: the first maximiser in the
// order of concatenate([sorted ref, sorted cur]), i.e. the smallest
// reference value attaining the extreme, else the smallest current one.
type extremes struct {
	max, min       float64
	maxLoc, minLoc float64
}

// tracker follows one extreme and its location during the merge.
type tracker struct {
	best     float64
	locRef   float64 // smallest reference value attaining best
	locCur   float64 // smallest current-only value attaining best
	haveRef  bool
	haveCur  bool
	negative bool // track the minimum instead of the maximum
}

func (t *tracker) see(diff, v float64, inRef bool) {
	better := diff > t.best
	if t.negative {
		better = diff < t.best
	}
	if better {
		t.best = diff
		t.haveRef, t.haveCur = inRef, !inRef
		t.locRef, t.locCur = v, v
		return
	}
	if diff == t.best {
		if inRef && !t.haveRef {
			t.haveRef, t.locRef = true, v
		} else if !inRef && !t.haveRef && !t.haveCur {
			t.haveCur, t.locCur = true, v
		}
	}
}

func (t *tracker) loc() float64 {
	if t.haveRef {
		return t.locRef
	}
	return t.locCur
}

// ecdfExtremes merges two sorted, non-empty samples once. At every distinct
// pooled value x it evaluates F_ref(x) - F_cur(x) as i/n1 - j/n2, the same
// floating-point expression scipy evaluates, so the statistic is identical.
func ecdfExtremes(a, b []float64) extremes {
	n1, n2 := len(a), len(b)
	f1, f2 := float64(n1), float64(n2)
	hi := tracker{best: math.Inf(-1)}
	lo := tracker{best: math.Inf(1), negative: true}
	i, j := 0, 0
	for i < n1 || j < n2 {
		var v float64
		switch {
		case j == n2 || (i < n1 && a[i] <= b[j]):
			v = a[i]
		default:
			v = b[j]
		}
		i0 := i
		for i < n1 && a[i] == v {
			i++
		}
		for j < n2 && b[j] == v {
			j++
		}
		diff := float64(i)/f1 - float64(j)/f2
		inRef := i > i0
		hi.see(diff, v, inRef)
		lo.see(diff, v, inRef)
	}
	return extremes{max: hi.best, min: lo.best, maxLoc: hi.loc(), minLoc: lo.loc()}
}
