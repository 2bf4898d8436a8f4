package shap

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/vigilhq/vigil/stats/forest"
)

// MaxTableFeatures is the largest number of distinct features on one
// root-to-leaf path for which a TreeExplainer tabulates the leaf (2^m
// values); a tree with a longer path is explained by Tree's recursion.
const MaxTableFeatures = 12

// A TreeExplainer explains many rows of one ensemble with path-dependent
// TreeSHAP, the values of Tree, from per-leaf tables computed once (the
// idea of Fast TreeSHAP v2, Yang 2021). At a leaf with value v whose path
// splits on the distinct features P (m of them, feature j sending a
// share z_j of the covers the path's way), a row follows the path on the
// features Q ⊆ P whose every split it satisfies. With
// c(s) = s!(m−s−1)!/m!, G(Q) = Σ_{S⊆Q} c(|S|)·Π_{j∈Q∖S} z_j and
// H = v·Π_{j∈P∖Q} z_j, the leaf adds (1−z_i)·G(Q∖{i})·H to feature i of Q
// and −G(Q)·H to each feature of P∖Q: Algorithm 2's sum at the leaf,
// rearranged. The table holds v·G for every Q, so a row costs a pass over
// each leaf's path instead of Tree's O(depth²) unwinding per leaf.
// A TreeExplainer is safe for concurrent use.
type TreeExplainer struct {
	e     *forest.Ensemble
	base  float64
	trees []treeTable
}

// treeTable is one tree's leaves, tabulated; recurse marks a tree left to
// Tree's recursion (a path with more than MaxTableFeatures features).
type treeTable struct {
	tree    *forest.Tree
	recurse bool
	leaves  []leafTable
	// steps lists the splits of every leaf's path: the node, the child
	// the path takes, and the bit of the split's feature in the leaf's P.
	stepNode []int32
	stepLeft []bool
	stepBit  []uint16
	feature  []int32   // each leaf's P, in order of first appearance from the root
	zero     []float64 // z_j of each feature of P
	g        []float64 // v·G(Q) of each leaf, Q as a bit mask over P
}

// leafTable locates one leaf's slices in its treeTable.
type leafTable struct {
	steps, stepsEnd int32 // its splits: steps[steps:stepsEnd]
	feats           int32 // its features: feature[feats:feats+m], zero likewise
	m               int32
	g               int32 // its table: g[g : g+2^m]
}

// NewTreeExplainer tabulates every tree of e.
func NewTreeExplainer(e *forest.Ensemble) *TreeExplainer {
	return newTreeExplainer(e, MaxTableFeatures)
}

// newTreeExplainer tabulates the trees whose paths have at most limit
// distinct features.
func newTreeExplainer(e *forest.Ensemble, limit int) *TreeExplainer {
	te := &TreeExplainer{e: e, trees: make([]treeTable, len(e.Trees))}
	base := 0.0
	for i := range e.Trees {
		base += expected(&e.Trees[i])
		te.trees[i] = tabulate(&e.Trees[i], limit)
	}
	te.base = e.Base + e.Scale*base
	return te
}

// pathStep is one split on the way from the root to a node.
type pathStep struct {
	node    int32
	left    bool
	feature int
	zero    float64
}

// tabulate builds a tree's leaf tables by a walk from the root.
func tabulate(t *forest.Tree, limit int) treeTable {
	tt := treeTable{tree: t}
	var path []pathStep
	var gbuf, ebuf []float64
	var walk func(node int) bool
	walk = func(node int) bool {
		n := &t.Nodes[node]
		if !n.Leaf() {
			for _, child := range [2]int{n.Left, n.Right} {
				z := 0.0
				if n.Cover > 0 {
					z = t.Nodes[child].Cover / n.Cover
				}
				path = append(path, pathStep{node: int32(node), left: child == n.Left, feature: n.Feature, zero: z})
				ok := walk(child)
				path = path[:len(path)-1]
				if !ok {
					return false
				}
			}
			return true
		}
		leaf := leafTable{steps: int32(len(tt.stepNode)), feats: int32(len(tt.feature)), g: int32(len(tt.g))}
		for _, s := range path {
			bit := -1
			for k, f := range tt.feature[leaf.feats:] {
				if int(f) == s.feature {
					bit = k
					tt.zero[int(leaf.feats)+k] *= s.zero
				}
			}
			if bit < 0 {
				bit = len(tt.feature) - int(leaf.feats)
				tt.feature = append(tt.feature, int32(s.feature))
				tt.zero = append(tt.zero, s.zero)
			}
			tt.stepNode = append(tt.stepNode, s.node)
			tt.stepLeft = append(tt.stepLeft, s.left)
			tt.stepBit = append(tt.stepBit, uint16(bit))
		}
		leaf.stepsEnd = int32(len(tt.stepNode))
		m := len(tt.feature) - int(leaf.feats)
		if m > limit {
			return false
		}
		leaf.m = int32(m)
		gbuf, ebuf = leafG(tt.zero[leaf.feats:], n.Value, gbuf, ebuf)
		tt.g = append(tt.g, gbuf[:1<<m]...)
		tt.leaves = append(tt.leaves, leaf)
		return true
	}
	if t.Nodes[0].Leaf() || !walk(0) {
		return treeTable{tree: t, recurse: !t.Nodes[0].Leaf()}
	}
	return tt
}

// leafG returns v·G(Q) for every Q ⊆ P in out[:2^m], from the elementary
// symmetric polynomials of the z_j of Q: G(Q) = Σ_k c(|Q|−k)·e_k(Q).
// es and out are reused buffers.
func leafG(zero []float64, v float64, out, es []float64) ([]float64, []float64) {
	m := len(zero)
	size := 1 << m
	out = grow(out, size)
	es = grow(es, size*(m+1)) // e_k(Q) at es[Q*(m+1)+k]
	c := make([]float64, m)   // c(s) = s!(m−s−1)!/m!
	for s := range m {
		c[s] = 1 / (float64(m) * binomial(m-1, s))
	}
	w := m + 1
	clear(es[:w])
	es[0] = 1
	for q := 1; q < size; q++ {
		b := 0
		for q>>b&1 == 0 {
			b++
		}
		prev, cur := es[(q&^(1<<b))*w:][:w], es[q*w:][:w]
		cur[0] = prev[0]
		for k := 1; k <= m; k++ {
			cur[k] = prev[k] + zero[b]*prev[k-1]
		}
	}
	for q := range size {
		n := popcount(uint64(q))
		g := 0.0
		if n < m {
			for k := 0; k <= n; k++ {
				g += c[n-k] * es[q*w+k]
			}
		}
		out[q] = v * g
	}
	return out, es
}

// grow returns b with length n, reallocated when too short.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// rowsPerBlock is how many rows a worker takes through each tree in turn,
// so that a tree's tables are read from cache once per block.
const rowsPerBlock = 32

// Explain returns the path-dependent TreeSHAP values of row x, as Tree.
func (te *TreeExplainer) Explain(x []float64) (Result, error) {
	out, err := te.ExplainRows([][]float64{x}, 1)
	if err != nil {
		return Result{}, err
	}
	return out[0], nil
}

// ExplainRows explains every row, splitting the rows across workers
// goroutines (0: GOMAXPROCS). Each result is checked for additivity.
func (te *TreeExplainer) ExplainRows(rows [][]float64, workers int) ([]Result, error) {
	for i, x := range rows {
		if len(x) != te.e.NumFeatures {
			return nil, fmt.Errorf("%w: row %d has %d features, the model reads %d", ErrInvalid, i, len(x), te.e.NumFeatures)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Result, len(rows))
	blocks := (len(rows) + rowsPerBlock - 1) / rowsPerBlock
	next := make(chan int, blocks)
	for b := range blocks {
		next <- b * rowsPerBlock
	}
	close(next)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range min(workers, blocks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				if err := te.block(rows[from:min(from+rowsPerBlock, len(rows))], out[from:]); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// block explains a few rows, tree by tree, into out.
func (te *TreeExplainer) block(rows [][]float64, out []Result) error {
	nf := te.e.NumFeatures
	phi := make([]float64, len(rows)*nf)
	maxNodes := 0
	var path []pathElem
	for i := range te.trees {
		maxNodes = max(maxNodes, len(te.trees[i].tree.Nodes))
		if te.trees[i].recurse && path == nil {
			d := te.e.MaxDepth() + 2
			path = make([]pathElem, d*(d+1)/2)
		}
	}
	left := make([]bool, maxNodes)
	for ti := range te.trees {
		tt := &te.trees[ti]
		for r, x := range rows {
			p := phi[r*nf : (r+1)*nf]
			switch {
			case tt.recurse:
				treeShap(te.e, tt.tree, x, p, 0, path, 0, 1, 1, -1)
			case len(tt.leaves) > 0:
				tt.add(te.e, x, left, p)
			}
		}
	}
	for r, x := range rows {
		res := Result{Base: te.base, Output: te.e.Raw(x), Values: phi[r*nf : (r+1)*nf : (r+1)*nf]}
		for i := range res.Values {
			res.Values[i] *= te.e.Scale
		}
		if err := res.Check(additivityTol); err != nil {
			return err
		}
		out[r] = res
	}
	return nil
}

// add adds the tree's contributions for row x to phi; left is scratch
// space for where each split sends the row.
func (tt *treeTable) add(e *forest.Ensemble, x []float64, left []bool, phi []float64) {
	nodes := tt.tree.Nodes
	for i := range nodes {
		if n := &nodes[i]; !n.Leaf() {
			left[i] = e.Next(n, e.Input(x[n.Feature])) == n.Left
		}
	}
	for li := range tt.leaves {
		l := &tt.leaves[li]
		m := int(l.m)
		q := 1<<m - 1
		for s := l.steps; s < l.stepsEnd; s++ {
			if left[tt.stepNode[s]] != tt.stepLeft[s] {
				q &^= 1 << tt.stepBit[s]
			}
		}
		feats, zero, g := tt.feature[l.feats:][:m], tt.zero[l.feats:][:m], tt.g[l.g:][:1<<m]
		h := 1.0
		for k := range m {
			if q>>k&1 == 0 {
				h *= zero[k]
			}
		}
		miss := -g[q] * h
		for k, f := range feats {
			if q>>k&1 == 1 {
				phi[f] += (1 - zero[k]) * g[q&^(1<<k)] * h
			} else {
				phi[f] += miss
			}
		}
	}
}
