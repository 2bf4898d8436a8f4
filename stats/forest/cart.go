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
	// Each feature's rows in order of value (then row), kept in order as
	// nodes split them: one sort per feature for the whole tree.
	sorted := make([][]int, width)
	for j := range sorted {
		sorted[j] = slices.Clone(rows)
		slices.SortFunc(sorted[j], func(a, b int) int { return cmp.Or(cmp.Compare(xs[a][j], xs[b][j]), cmp.Compare(a, b)) })
	}
	f := &cartFit{xs: xs, ys: ys, opt: opt, width: width, left: make([]bool, len(xs))}
	f.grow(sorted, 0)
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
	// left marks, by row, the rows a split sends left.
	left []bool
}

// grow adds the node of the rows in sorted (each feature's order of the
// same rows) and its subtree, and returns its index.
func (f *cartFit) grow(sorted [][]int, depth int) int {
	rows := sorted[0]
	at := len(f.nodes)
	n := float64(len(rows))
	sum, constant := 0.0, true
	for _, i := range rows {
		sum += f.ys[i]
		constant = constant && f.ys[i] == f.ys[rows[0]]
	}
	mean := sum / n
	f.nodes = append(f.nodes, Node{Left: -1, Right: -1, Value: mean, Cover: n})
	if depth >= f.opt.MaxDepth || len(rows) < 2*f.opt.MinLeaf || constant {
		return at
	}
	feature, threshold, ok := f.split(sorted, sum)
	if !ok {
		return at
	}
	for _, i := range rows {
		f.left[i] = f.xs[i][feature] <= threshold
	}
	lefts, rights := make([][]int, f.width), make([][]int, f.width)
	for j, order := range sorted {
		for _, i := range order {
			if f.left[i] {
				lefts[j] = append(lefts[j], i)
			} else {
				rights[j] = append(rights[j], i)
			}
		}
	}
	l := f.grow(lefts, depth+1)
	r := f.grow(rights, depth+1)
	f.nodes[at] = Node{Left: l, Right: r, Feature: feature, Threshold: threshold, DefaultLeft: len(lefts[0]) >= len(rights[0]),
		Value: mean, Cover: n}
	return at
}

// split returns the best split of the node's rows (sorted by each
// feature; their outputs sum to total), or false when no threshold leaves
// MinLeaf rows on each side.
func (f *cartFit) split(sorted [][]int, total float64) (int, float64, bool) {
	best, feature, threshold, found := math.Inf(-1), 0, 0.0, false
	minLeaf := f.opt.MinLeaf
	for j, order := range sorted {
		n, left := len(order), 0.0
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
