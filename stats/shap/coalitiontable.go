package shap

import (
	"math/bits"
	"sync"
)

// tableFeatures is the most varying features for which KernelTree
// tabulates every coalition's value in one walk of each tree (a table of
// 3^m partial coalitions: 531,441 numbers at 12) instead of walking each
// tree once per coalition. Up to 11 varying features Kernel enumerates
// every coalition anyway.
const tableFeatures = 12

// A coalitionTable gives v(S) of every coalition of a coalitionForest's
// varying features from one walk of each tree that decides the coalition
// lazily: a split on a varying feature not yet decided on the path keeps
// together the background rows that go x's way whatever the coalition
// says, and forks only the others, once with the feature in the coalition
// (they follow x) and once out of it (they go their own way). A leaf adds
// its value times the rows reaching it to the partial coalition of its
// path (each varying feature in, out or undecided: an index in base 3),
// and one pass per feature then hands every partial coalition's sum to
// the full coalitions that agree with it. Coalitions sharing the
// decisions a path makes share its walk, so the walks are far fewer than
// one per coalition; the numbers are the same sums, added in another
// order.
type coalitionTable struct {
	c    *coalitionForest
	m    int
	once sync.Once
	v    []float64 // v(S) by coalition mask
}

// tframe is a subtree still to walk: the rows that reach it and the
// coalition decided so far (in, out; idx its base-3 index).
type tframe struct {
	node    int32
	idx     int32
	in, out uint32
	set     uint64
}

// values returns v(S) of each coalition of masks, tabulating every
// coalition on the first call.
func (t *coalitionTable) values(masks []uint64) ([]float64, error) {
	t.once.Do(t.tabulate)
	v := make([]float64, len(masks))
	for i, mask := range masks {
		v[i] = t.v[mask]
	}
	return v, nil
}

// tabulate fills t.v: the partial coalitions' sums, gathered from every
// tree (the trees shared among the workers, each with a table of its own),
// spread to the full coalitions.
func (t *coalitionTable) tabulate() {
	c := t.c
	size := pow3(t.m)
	workers := min(c.workers, len(c.roots))
	acc := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc[w] = make([]float64, size)
			stack := make([]tframe, 0, 64)
			for ti := w; ti < len(c.roots); ti += workers {
				for ch, left := range c.lefts {
					n := min(chunkRows, c.rows-ch*chunkRows)
					stack = c.walkPartial(c.roots[ti], 1<<n-1, left, acc[w], stack)
				}
			}
		}()
	}
	wg.Wait()
	sum := acc[0]
	for _, a := range acc[1:] {
		for i, x := range a {
			sum[i] += x
		}
	}
	// Hand each partial coalition's sum to both settings of each feature
	// it leaves undecided, feature after feature: after feature k, every
	// entry with k decided holds what reaches it from entries that left
	// k open.
	for k, p := 0, 1; k < t.m; k, p = k+1, p*3 {
		for i := 0; i < size; i++ {
			if i/p%3 == 0 {
				sum[i+p] += sum[i]
				sum[i+2*p] += sum[i]
			}
		}
	}
	t.v = make([]float64, 1<<t.m)
	for mask := range t.v {
		idx := 0
		for k, p := 0, 1; k < t.m; k, p = k+1, p*3 {
			if mask>>k&1 == 1 {
				idx += p
			} else {
				idx += 2 * p
			}
		}
		t.v[mask] = c.e.Base + c.e.Scale*sum[idx]/float64(c.rows)
	}
}

// walkPartial walks the rows of set (bits of one 64-row chunk, left its
// left sets) down the tree from root, adding each reached leaf's value
// times the rows reaching it to acc at the partial coalition of the way
// there; stack is scratch space, returned for reuse.
func (c *coalitionForest) walkPartial(root int32, set uint64, left []uint64, acc []float64, stack []tframe) []tframe {
	stack = append(stack[:0], tframe{node: root, set: set})
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, set, in, out, idx := f.node, f.set, f.in, f.out, f.idx
		for {
			n := &c.nodes[i]
			if n.left < 0 {
				acc[idx] += n.value * float64(bits.OnesCount64(set))
				break
			}
			b := uint32(n.vbit)
			if in&b != 0 {
				i = n.next
				continue
			}
			l := set & left[i]
			if b == 0 || out&b != 0 { // the rows go their own way
				switch l {
				case 0:
					i = n.right
				case set:
					i = n.left
				default:
					stack = append(stack, tframe{node: n.right, set: set &^ l, in: in, out: out, idx: idx})
					i, set = n.left, l
				}
				continue
			}
			other, with := n.right, l // the rows going x's way whatever the coalition
			if n.next != n.left {
				other, with = n.left, set&^l
			}
			if away := set &^ with; away != 0 {
				stack = append(stack,
					tframe{node: other, set: away, in: in, out: out | b, idx: idx + 2*n.vpow},
					tframe{node: n.next, set: away, in: in | b, out: out, idx: idx + n.vpow})
			}
			if with == 0 {
				break
			}
			i, set = n.next, with
		}
	}
	return stack
}

// pow3 is 3^k.
func pow3(k int) int {
	p := 1
	for range k {
		p *= 3
	}
	return p
}
