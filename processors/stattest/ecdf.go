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

// ecdfExtremes merges two sorted, non-empty samples once. At every distinct
// pooled value x it evaluates F_ref(x) - F_cur(x) as i/n1 - j/n2, the same
// floating-point expression scipy evaluates, so the statistic is identical.
func ecdfExtremes(a, b []float64) extremes {
	f1, f2 := float64(len(a)), float64(len(b))
	hi := tracker{best: math.Inf(-1)}
	lo := tracker{best: math.Inf(1), negative: true}
	m := merge{a: a, b: b}
	for m.next() {
		diff := float64(m.i)/f1 - float64(m.j)/f2
		hi.see(diff, m.v, m.inRef)
		lo.see(diff, m.v, m.inRef)
	}
	return extremes{max: hi.best, min: lo.best, maxLoc: hi.loc(), minLoc: lo.loc()}
}
