package forest

import "math"

// flatNode is one node of a flat forest, 16 bytes: a split sends a row to
// kids (left) or kids+1 (right); a leaf has a NaN threshold and kids
// pointing to itself, so that a row that reached it stays there whatever
// it holds (every comparison with NaN is false).
type flatNode struct {
	thr  float64 // split threshold; NaN on a leaf
	feat int32   // split feature; 0 on a leaf
	kids int32   // left child, the right one follows it; the leaf itself on a leaf
}

// flatForest is an Ensemble laid out for evaluating many rows: every tree's
// nodes in one array, children side by side, breadth first, so that the
// top levels of a tree share cache lines; leaf values apart.
type flatForest struct {
	nodes  []flatNode
	values []float64 // leaf value by node index (0 on a split)
	roots  []int32
	depths []int32 // levels of each tree: how many steps take every row to a leaf
	// special is true when a value must go through Next's rules: NaN
	// always, ±0 at a MissingZero split.
	zeroMissing bool
}

// flatten lays e out as a flatForest.
func (e *Ensemble) flatten() *flatForest {
	f := &flatForest{}
	type item struct{ node, at, depth int32 }
	for ti := range e.Trees {
		nodes := e.Trees[ti].Nodes
		root := int32(len(f.nodes))
		f.roots = append(f.roots, root)
		f.nodes = append(f.nodes, flatNode{})
		f.values = append(f.values, 0)
		depth := int32(0)
		queue := []item{{0, root, 0}}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			n := &nodes[it.node]
			if n.Leaf() {
				f.nodes[it.at] = flatNode{thr: math.NaN(), kids: it.at}
				f.values[it.at] = n.Value
				depth = max(depth, it.depth)
				continue
			}
			kids := int32(len(f.nodes))
			f.nodes = append(f.nodes, flatNode{}, flatNode{})
			f.values = append(f.values, 0, 0)
			f.nodes[it.at] = flatNode{thr: n.Threshold, feat: int32(n.Feature), kids: kids}
			f.zeroMissing = f.zeroMissing || n.Missing == MissingZero
			queue = append(queue, item{int32(n.Left), kids, it.depth + 1}, item{int32(n.Right), kids + 1, it.depth + 1})
		}
		f.depths = append(f.depths, depth)
	}
	return f
}

// flat returns e's flat layout, made on first use.
func (e *Ensemble) flat() *flatForest {
	if f := e.flatCache.Load(); f != nil {
		return f
	}
	f := e.flatten()
	e.flatCache.Store(f)
	return f
}

// special reports whether a row's value must go through Next's rules: NaN,
// or zero where a split treats zero as missing.
func (f *flatForest) special(in []float64) bool {
	for _, v := range in {
		if v != v || f.zeroMissing && math.Abs(v) <= 1e-35 {
			return true
		}
	}
	return false
}

// rawBlock is how many rows RawRows takes through each tree in turn.
const rawBlock = 64

// RawRows writes the raw output of each row to out (len(out) ≥
// len(rows)), equal to Raw's bit for bit (each row's leaf values are added
// in tree order). It takes blocks of 64 rows through one tree after
// another, level by level: at each level every row of the block takes one
// step, without a branch (a row at a leaf stays there), so that the steps
// of different rows overlap in the processor and a tree's nodes (16 bytes
// each) are read from cache. A row holding NaN (or zero, for a model with
// splits that treat zero as missing) is walked by Leaf's rules instead.
// The layout is made on the first call: the Ensemble must not change
// after it.
func (e *Ensemble) RawRows(rows [][]float64, out []float64) {
	f := e.flat()
	nf := e.NumFeatures
	var idx [rawBlock]int32
	in := make([]float64, rawBlock*nf)
	var special []int
	for from := 0; from < len(rows); from += rawBlock {
		block, sums := rows[from:min(from+rawBlock, len(rows))], out[from:min(from+rawBlock, len(rows))]
		special = special[:0]
		for r, x := range block {
			row := in[r*nf : (r+1)*nf]
			for j, v := range x[:nf] {
				row[j] = e.Input(v)
			}
			if f.special(row) {
				special = append(special, r)
			}
		}
		clear(sums)
		for ti, root := range f.roots {
			f.walk(e.Compare, root, f.depths[ti], in, nf, idx[:len(block)])
			if len(special) == 0 {
				for r, i := range idx[:len(block)] {
					sums[r] += f.values[i]
				}
				continue
			}
			k := 0 // the next special row
			for r, i := range idx[:len(block)] {
				if k < len(special) && special[k] == r {
					k++
					sums[r] += e.Leaf(&e.Trees[ti], block[r]).Value
					continue
				}
				sums[r] += f.values[i]
			}
		}
		for r := range sums {
			sums[r] = e.Base + e.Scale*sums[r]
		}
	}
}

// walk takes the rows of in (nf values each) from root down a tree of
// depth levels, leaving in idx the leaf each reaches.
func (f *flatForest) walk(cmp Compare, root, depth int32, in []float64, nf int, idx []int32) {
	nodes := f.nodes
	for r := range idx {
		idx[r] = root
	}
	for range depth {
		if cmp == Less {
			for r, i := range idx {
				n := &nodes[i]
				idx[r] = n.kids + right(in[r*nf+int(n.feat)] >= n.thr)
			}
		} else {
			for r, i := range idx {
				n := &nodes[i]
				idx[r] = n.kids + right(in[r*nf+int(n.feat)] > n.thr)
			}
		}
	}
}

// right is 1 for true: the step to the right child.
func right(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
