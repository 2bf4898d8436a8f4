package stattest

import (
	"math"
	"sort"
)

// DefaultBins is the number of reference-quantile bins Numeric.Bin makes
// when asked for 0 or fewer.
const DefaultBins = 10

// Bin cuts both samples into bins at the reference quantiles k/bins,
// k = 1..bins-1 (NumPy's default "linear" quantile, the same floating-point
// steps). Equal quantiles, from ties in the reference, are merged into one
// edge, so a tied reference yields fewer than bins cells. The outer cells
// are open: current values beyond the reference range land in the first
// or last cell. Bins are closed on the left (a value equal to an edge
// belongs to the cell above it, NumPy's searchsorted side="right").
// Counting is a binary search per edge in the sorted samples.
//
// Numeric.Bin cuts both samples at the reference quantiles k/B, k=1..B-1,
// B = 10 by default (NumPy's default linear quantile). Equal quantiles
// (ties in the reference) are merged, so a tied reference has fewer cells;
// cells are closed on the left and the outer cells are open, so current
// values outside the reference range are counted in the end cells.
func (d Numeric) Bin(bins int) Table {
	if bins <= 0 {
		bins = DefaultBins
	}
	edges := make([]float64, 0, bins-1)
	for k := 1; k < bins; k++ {
		q := quantile(d.Ref.Sorted, float64(k)/float64(bins))
		if len(edges) == 0 || q != edges[len(edges)-1] {
			edges = append(edges, q)
		}
	}
	return Table{Edges: edges, Ref: binCounts(d.Ref.Sorted, edges), Cur: binCounts(d.Cur.Sorted, edges), Counts: d.Counts()}
}

// binCounts counts sorted values into the cells cut by edges.
func binCounts(sorted, edges []float64) []int {
	out := make([]int, len(edges)+1)
	prev := 0
	for i, e := range edges {
		below := sort.SearchFloat64s(sorted, e) // values < e
		out[i] = below - prev
		prev = below
	}
	out[len(edges)] = len(sorted) - prev
	return out
}

// quantile is numpy.quantile(sorted, q) with method="linear": the virtual
// index (n-1)·q, then NumPy's two-sided linear interpolation between its
// neighbours.
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	vi := float64(n-1) * q
	lo := math.Floor(vi)
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	a, b, t := sorted[i], sorted[i+1], vi-lo
	diff := b - a
	// float64() keeps the compiler from fusing into an FMA, which NumPy
	// does not do.
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}
