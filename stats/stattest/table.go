package stattest

import (
	"fmt"
	"maps"
	"slices"
)

// Table is a pair of histograms over the same cells: the categories of a
// categorical feature (NewCategorical, FromCounts) or the reference-quantile
// bins of a numeric one (Numeric.Bin). PSI, JensenShannon, Hellinger,
// ChiSquare and GoodnessOfFit are methods on it. Counts.NRef and
// Counts.NCur are the sums of Ref and Cur.
type Table struct {
	// Labels names the cells of a categorical table, in sorted order; nil
	// for numeric bins.
	Labels []string
	// Edges are the interior edges of numeric bins: cell 0 holds values
	// below Edges[0], cell i holds Edges[i-1] <= v < Edges[i], the last
	// cell values >= the last edge. Nil for categories.
	Edges []float64
	// Ref and Cur count the reference and current values in each cell.
	Ref, Cur []int
	// Counts are the values used and the missing values removed.
	Counts
}

// NewCategorical counts two categorical columns into a Table whose cells
// are the union of the categories of both, in sorted order. The empty
// string is a missing value: counted in MissingRef/MissingCur, in no cell.
// A column with no other value is an *InputError wrapping ErrEmpty.
// Categories seen only in the current sample get a reference count of 0
// (see the methods for how each treats them).
func NewCategorical(ref, cur []string) (Table, error) {
	rc, rm := countStrings(ref)
	cc, cm := countStrings(cur)
	if len(rc) == 0 {
		return Table{}, emptyError(sideRef, rm)
	}
	if len(cc) == 0 {
		return Table{}, emptyError(sideCur, cm)
	}
	labels := slices.Sorted(maps.Keys(rc))
	for k := range cc {
		if _, ok := rc[k]; !ok {
			labels = append(labels, k)
		}
	}
	slices.Sort(labels)
	t := Table{Labels: labels, Ref: make([]int, len(labels)), Cur: make([]int, len(labels))}
	for i, l := range labels {
		t.Ref[i], t.Cur[i] = rc[l], cc[l]
	}
	t.Counts = Counts{NRef: len(ref) - rm, NCur: len(cur) - cm, MissingRef: rm, MissingCur: cm}
	return t, nil
}

func countStrings(col []string) (map[string]int, int) {
	m := make(map[string]int)
	missing := 0
	for _, s := range col {
		if s == "" {
			missing++
			continue
		}
		m[s]++
	}
	return m, missing
}

// FromCounts builds a categorical Table from per-category counts (for
// example, merged from sketches). labels, ref and cur must have one entry
// per cell; counts must be non-negative and each side must have a positive
// total. Labels are kept in the given order.
func FromCounts(labels []string, ref, cur []int) (Table, error) {
	if len(ref) != len(labels) || len(cur) != len(labels) {
		return Table{}, fmt.Errorf("stattest: counts: got %d labels, %d reference and %d current counts, want equal lengths: %w",
			len(labels), len(ref), len(cur), ErrInvalid)
	}
	t := Table{Labels: labels, Ref: ref, Cur: cur}
	for i := range labels {
		if ref[i] < 0 || cur[i] < 0 {
			return Table{}, fmt.Errorf("stattest: counts of %q: got %d and %d, want non-negative: %w",
				labels[i], ref[i], cur[i], ErrInvalid)
		}
		t.NRef += ref[i]
		t.NCur += cur[i]
	}
	if t.NRef == 0 {
		return Table{}, emptyError(sideRef, 0)
	}
	if t.NCur == 0 {
		return Table{}, emptyError(sideCur, 0)
	}
	return t, nil
}

// Cells is the number of cells.
func (t Table) Cells() int { return len(t.Ref) }

// sumCells adds f(i, p_i, q_i) over the cells, p and q the reference and
// current proportions.
func (t Table) sumCells(f func(i int, p, q float64) float64) float64 {
	p, q := t.proportions()
	s := 0.0
	for i := range p {
		s += f(i, p[i], q[i])
	}
	return s
}

// proportions returns Ref and Cur divided by their totals.
func (t Table) proportions() (p, q []float64) {
	p = make([]float64, len(t.Ref))
	q = make([]float64, len(t.Cur))
	nr, nc := float64(t.NRef), float64(t.NCur)
	for i := range p {
		p[i] = float64(t.Ref[i]) / nr
		q[i] = float64(t.Cur[i]) / nc
	}
	return p, q
}
