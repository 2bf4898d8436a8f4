package forest

import (
	"cmp"
	"errors"
	"math"
	"slices"
)

// CARTOptions bound a tree FitCART grows.
type CARTOptions struct {
	// MaxDepth is the deepest level of splits: a node at depth MaxDepth
	// (the root is at 0) is a leaf, so a tree has at most 2^MaxDepth
	// leaves.
	MaxDepth int
	// MinLeaf is the fewest training rows a leaf holds.
	MinLeaf int
}

// FitCART fits a regression tree by CART on the given rows of xs (each of
// the same width, no NaN) to ys and returns it as an Ensemble of one tree
// (base 0, scale 1, identity link, inputs compared in float64, x <=
// threshold going left), which TreeSHAP explains exactly.
//
// Each node takes the split that most reduces the squared error (the
// largest sum²/n of its two children), among thresholds midway between
// adjacent distinct values of a feature that leave MinLeaf rows on each
// side; ties go to the lower feature index, then the lower threshold. A
// node stays a leaf at MaxDepth, when fewer than 2·MinLeaf rows reach it,
// when their outputs are all equal, or when no split is allowed. These are
// the rules of scikit-learn's DecisionTreeRegressor (squared error, best
// splitter, max_depth, min_samples_leaf; it orders tied features at
// random). A leaf's value is the mean of its rows' outputs, each node's
// cover its row count, and a missing value goes to the child with more
// rows (left on a tie).
func FitCART(xs [][]float64, ys []float64, rows []int, opt CARTOptions) (*Ensemble, error) {
	if len(rows) == 0 || len(xs) == 0 || len(xs[0]) == 0 {
		return nil, invalid("a tree needs rows and features to fit")
	}
	if opt.MaxDepth < 0 || opt.MaxDepth > MaxDepth || opt.MinLeaf < 1 {
		return nil, errors.New("forest: MaxDepth must be in [0, 512] and MinLeaf at least 1")
	}
	width := len(xs[0])
	for _, i := range rows {
		if len(xs[i]) != width || math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) {
			return nil, invalid("row %d has %d values of %d, or output %v", i, len(xs[i]), width, ys[i])
		}
		for _, v := range xs[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, invalid("row %d holds a missing or infinite value", i)
			}
		}
	}
	f := &cartFit{xs: xs, ys: ys, opt: opt, width: width}
	f.grow(slices.Clone(rows), 0)
	e := &Ensemble{Trees: []Tree{{Nodes: f.nodes}}, Scale: 1, Compare: LessEqual, NumFeatures: width, Link: "identity"}
	return e, e.Validate()
}

// cartFit is one FitCART: the nodes so far, in preorder.
type cartFit struct {
	xs    [][]float64
	ys    []float64
	opt   CARTOptions
	width int
	nodes []Node
}

// grow adds the node of rows (and its subtree) and returns its index.
func (f *cartFit) grow(rows []int, depth int) int {
	at := len(f.nodes)
	n := float64(len(rows))
	sum := 0.0
	for _, i := range rows {
		sum += f.ys[i]
	}
	mean, constant := sum/n, true
	for _, i := range rows {
		constant = constant && f.ys[i] == f.ys[rows[0]]
	}
	f.nodes = append(f.nodes, Node{Left: -1, Right: -1, Value: mean, Cover: n})
	if depth >= f.opt.MaxDepth || len(rows) < 2*f.opt.MinLeaf || constant {
		return at
	}
	feature, threshold, ok := f.split(rows, sum)
	if !ok {
		return at
	}
	left, right := make([]int, 0, len(rows)), make([]int, 0, len(rows))
	for _, i := range rows {
		if f.xs[i][feature] <= threshold {
			left = append(left, i)
		} else {
			right = append(right, i)
		}
	}
	l := f.grow(left, depth+1)
	r := f.grow(right, depth+1)
	f.nodes[at] = Node{Left: l, Right: r, Feature: feature, Threshold: threshold, DefaultLeft: len(left) >= len(right),
		Value: mean, Cover: n}
	return at
}

// split returns the best split of rows (whose outputs sum to total), or
// false when no threshold leaves MinLeaf rows on each side.
func (f *cartFit) split(rows []int, total float64) (int, float64, bool) {
	best, feature, threshold, found := math.Inf(-1), 0, 0.0, false
	order := slices.Clone(rows)
	n, minLeaf := len(rows), f.opt.MinLeaf
	for j := range f.width {
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Or(cmp.Compare(f.xs[a][j], f.xs[b][j]), cmp.Compare(a, b))
		})
		left := 0.0
		for p := 1; p < n; p++ {
			left += f.ys[order[p-1]]
			lo, hi := f.xs[order[p-1]][j], f.xs[order[p]][j]
			if p < minLeaf || n-p < minLeaf || hi <= lo {
				continue
			}
			right := total - left
			if proxy := left*left/float64(p) + right*right/float64(n-p); proxy > best {
				best, feature, found = proxy, j, true
				threshold = lo/2 + hi/2
				if threshold == hi || math.IsInf(threshold, 0) {
					threshold = lo
				}
			}
		}
	}
	return feature, threshold, found
}
