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

// merge walks the distinct values of two sorted samples in ascending
// order. After each next, v is the value, and i and j are the numbers of
// values <= v in a and b (so F_a(v) = i/len(a)).
type merge struct {
	a, b  []float64
	i, j  int
	v     float64
	inRef bool // v occurs in a
}

func (m *merge) next() bool {
	a, b := m.a, m.b
	if m.i == len(a) && m.j == len(b) {
		return false
	}
	if m.j == len(b) || (m.i < len(a) && a[m.i] <= b[m.j]) {
		m.v = a[m.i]
	} else {
		m.v = b[m.j]
	}
	i0 := m.i
	for m.i < len(a) && a[m.i] == m.v {
		m.i++
	}
	for m.j < len(b) && b[m.j] == m.v {
		m.j++
	}
	m.inRef = m.i > i0
	return true
}

// peek is the next distinct value, +Inf at the end.
func (m *merge) peek() float64 {
	next := math.Inf(1)
	if m.i < len(m.a) {
		next = m.a[m.i]
	}
	if m.j < len(m.b) {
		next = min(next, m.b[m.j])
	}
	return next
}

// ecdfExtremes finds the extremes of F_ref - F_cur over the pooled
// values of two sorted, non-empty samples. It visits only the points where
// an extreme can occur (see sparseExtremes), in O(s·log(l/s)) for sizes
// s <= l, and evaluates each difference as i/n_ref - j/n_cur, the
// floating-point expression scipy evaluates at every pooled value, so the
// statistic and its location are identical to scipy's.
func ecdfExtremes(ref, cur []float64) extremes {
	if len(cur) <= len(ref) {
		return sparseExtremes(ref, cur, false)
	}
	// Extremes of F_cur - F_ref: negation is exact in floating point, and
	// the location rules depend only on which points are in ref.
	e := sparseExtremes(cur, ref, true)
	return extremes{max: -e.min, min: -e.max, maxLoc: e.minLoc, minLoc: e.maxLoc}
}

// sparseExtremes returns the extremes of F_l - F_s, s being the smaller
// sample, with locations by scipy's rule (sIsRef tells which sample is the
// reference). Between two consecutive distinct values of s, F_s is
// constant and F_l - F_s rises at each value of l, so within such a run of
// l-only values the difference is largest at the run's last value and
// smallest just before the run, at a value of s. The extremes, and every
// point attaining them, are therefore among the values of s and the last
// l-only value before each of them (and after the last one). The run ends
// are found by galloping search from the previous one.
func sparseExtremes(l, s []float64, sIsRef bool) extremes {
	fl, fs := float64(len(l)), float64(len(s))
	hi := tracker{best: math.Inf(-1)}
	lo := tracker{best: math.Inf(1), negative: true}
	see := func(i, j int, v float64, inRef bool) {
		diff := float64(i)/fl - float64(j)/fs
		if diff >= hi.best {
			hi.see(diff, v, inRef)
		}
		if diff <= lo.best {
			lo.see(diff, v, inRef)
		}
	}
	prevI, j := 0, 0
	for j < len(s) {
		c, j0 := s[j], j // j0: the s-count in force before c
		for j < len(s) && s[j] == c {
			j++
		}
		lt := gallop(l, prevI, c) // values of l below c
		if lt > prevI {
			see(lt, j0, l[lt-1], !sIsRef)
		}
		le := lt
		for le < len(l) && l[le] == c {
			le++
		}
		see(le, j, c, sIsRef || le > lt)
		prevI = le
	}
	if prevI < len(l) {
		see(len(l), len(s), l[len(l)-1], !sIsRef)
	}
	return extremes{max: hi.best, min: lo.best, maxLoc: hi.loc(), minLoc: lo.loc()}
}

// gallop returns the first index >= from at which a[index] >= c (len(a)
// if none), searching with doubling steps and then bisection, so a short
// distance costs few comparisons.
func gallop(a []float64, from int, c float64) int {
	lo, step := from, 1
	hi := from
	for hi < len(a) && a[hi] < c {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(a))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
