package shap

import (
	"fmt"

	"github.com/vigilhq/vigil/stats/forest"
)

// pathElem is one feature on the path from the root of a tree to a node:
// the share of covers that go the row's way (zero), whether the row goes
// that way (one), and the permutation weight of the subsets of the path.
type pathElem struct {
	feature   int
	zero, one float64
	weight    float64
}

// Tree returns the path-dependent TreeSHAP values of row x for model e.
func Tree(e *forest.Ensemble, x []float64) (Result, error) {
	if len(x) != e.NumFeatures {
		return Result{}, fmt.Errorf("%w: the row has %d features, the model reads %d", ErrInvalid, len(x), e.NumFeatures)
	}
	d := e.MaxDepth() + 2
	path := make([]pathElem, d*(d+1)/2)
	r := Result{Values: make([]float64, len(x)), Output: e.Raw(x)}
	phi := make([]float64, len(x))
	base := 0.0
	for ti := range e.Trees {
		t := &e.Trees[ti]
		base += expected(t)
		treeShap(e, t, x, phi, 0, path, 0, 1, 1, -1)
	}
	for i := range phi {
		r.Values[i] = e.Scale * phi[i]
	}
	r.Base = e.Base + e.Scale*base
	return r, r.Check(additivityTol)
}

// expected returns a tree's mean leaf value weighted by the leaves' covers.
func expected(t *forest.Tree) float64 {
	root := t.Nodes[0].Cover
	if t.Nodes[0].Leaf() {
		return t.Nodes[0].Value
	}
	s := 0.0
	for i := range t.Nodes {
		if n := &t.Nodes[i]; n.Leaf() {
			s += n.Value * n.Cover / root
		}
	}
	return s
}

// treeShap is Algorithm 2's RECURSE: it extends the path by the split that
// led to node, and at a leaf adds each path feature's contribution to phi.
// path holds the parent's path in its first depth elements; the node's
// copy goes after it, so that siblings do not see each other's changes.
func treeShap(e *forest.Ensemble, t *forest.Tree, x, phi []float64, node int, parent []pathElem, depth int,
	zero, one float64, feature int) {
	path := parent[depth:]
	if depth > 0 {
		copy(path, parent[:depth])
	}
	extend(path, depth, zero, one, feature)
	n := &t.Nodes[node]
	if n.Leaf() {
		for i := 1; i <= depth; i++ {
			w := unwoundSum(path, depth, i)
			el := path[i]
			phi[el.feature] += w * (el.one - el.zero) * n.Value
		}
		return
	}
	hot := e.Next(n, e.Input(x[n.Feature]))
	cold := n.Right
	if hot == n.Right {
		cold = n.Left
	}
	hotZero, coldZero := 0.0, 0.0
	if n.Cover > 0 {
		hotZero = t.Nodes[hot].Cover / n.Cover
		coldZero = t.Nodes[cold].Cover / n.Cover
	}
	inZero, inOne := 1.0, 1.0
	k := 1
	for ; k <= depth; k++ {
		if path[k].feature == n.Feature {
			break
		}
	}
	if k <= depth {
		inZero, inOne = path[k].zero, path[k].one
		unwind(path, depth, k)
		depth--
	}
	treeShap(e, t, x, phi, hot, path, depth+1, hotZero*inZero, inOne, n.Feature)
	treeShap(e, t, x, phi, cold, path, depth+1, coldZero*inZero, 0, n.Feature)
}

// extend adds a feature with fractions zero and one to the path of
// length depth, updating the permutation weights.
func extend(path []pathElem, depth int, zero, one float64, feature int) {
	w := 0.0
	if depth == 0 {
		w = 1
	}
	path[depth] = pathElem{feature: feature, zero: zero, one: one, weight: w}
	for i := depth - 1; i >= 0; i-- {
		path[i+1].weight += one * path[i].weight * float64(i+1) / float64(depth+1)
		path[i].weight = zero * path[i].weight * float64(depth-i) / float64(depth+1)
	}
}

// unwind removes element idx from the path (undoing extend).
func unwind(path []pathElem, depth, idx int) {
	one, zero := path[idx].one, path[idx].zero
	next := path[depth].weight
	for i := depth - 1; i >= 0; i-- {
		if one != 0 {
			tmp := path[i].weight
			path[i].weight = next * float64(depth+1) / (float64(i+1) * one)
			next = tmp - path[i].weight*zero*float64(depth-i)/float64(depth+1)
		} else {
			path[i].weight = path[i].weight * float64(depth+1) / (zero * float64(depth-i))
		}
	}
	for i := idx; i < depth; i++ {
		path[i].feature, path[i].zero, path[i].one = path[i+1].feature, path[i+1].zero, path[i+1].one
	}
}

// unwoundSum is the total permutation weight of the path with element idx
// removed, without changing the path.
func unwoundSum(path []pathElem, depth, idx int) float64 {
	one, zero := path[idx].one, path[idx].zero
	next := path[depth].weight
	total := 0.0
	for i := depth - 1; i >= 0; i-- {
		if one != 0 {
			tmp := next * float64(depth+1) / (float64(i+1) * one)
			total += tmp
			next = path[i].weight - tmp*zero*float64(depth-i)/float64(depth+1)
		} else if zero != 0 {
			total += path[i].weight / zero / (float64(depth-i) / float64(depth+1))
		}
	}
	return total
}
