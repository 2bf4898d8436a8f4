package shap

import (
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/vigilhq/vigil/stats/forest"
)

// KernelTree is Kernel for the raw output of tree ensemble e (what
// e.RawRows returns): every coalition's value is still the mean over the
// background of e's output on the hybrid rows (x on the coalition, the
// background row elsewhere), but each tree is walked once per coalition
// carrying the set of background rows down: a split on a feature of the
// coalition sends the whole set the way x goes, any other split divides
// the set by the threshold, and a leaf adds its value times the number of
// rows that reach it. The raw output is a sum over trees, so the mean over
// the hybrid rows is the sum over leaves of value x rows reached / rows:
// the same number up to the order of the additions (within 1e-12 of the
// hybrid rows' mean, relative), without walking |background| rows through
// every tree one by one or touching one sum per row at every leaf. With at
// most tableFeatures varying features one walk of each tree serves every
// coalition at once (coalitionTable); past that each coalition walks.
// opt.Workers goroutines share the trees or the coalitions.
func KernelTree(e *forest.Ensemble, x []float64, background [][]float64, opt KernelOptions) (KernelResult, error) {
	if len(x) < e.NumFeatures {
		return KernelResult{}, fmt.Errorf("%w: the row has %d features, the model reads %d", ErrInvalid, len(x), e.NumFeatures)
	}
	f := func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		e.RawRows(rows, out)
		return out, nil
	}
	newEval := func(varying []int) func([]uint64) ([]float64, error) {
		c := newCoalitionForest(e, x, background, varying, max(1, opt.Workers))
		if len(varying) <= tableFeatures {
			return (&coalitionTable{c: c, m: len(varying)}).values
		}
		return c.values
	}
	return kernel(f, newEval, x, background, opt)
}

// chunkRows is how many background rows one set (a uint64) carries.
const chunkRows = 64

// cnode is one node of a coalitionForest, at the forest node's place.
type cnode struct {
	left, right int32   // children (indices into nodes); left < 0 on a leaf
	next        int32   // the child x goes to
	vbit        uint64  // the coalition bit of the split's feature; 0 when it does not vary
	vpow        int32   // 3^k for the split's varying feature k (coalitionTable's index)
	value       float64 // leaf value
}

// coalitionForest evaluates coalitions of one explained row on a tree
// ensemble against one background set.
type coalitionForest struct {
	e       *forest.Ensemble
	nodes   []cnode
	roots   []int32
	lefts   [][]uint64 // per chunk of 64 background rows, per node: the rows that go left
	rows    int        // background rows
	workers int
}

// frame is a subtree still to walk with the rows that reach it.
type frame struct {
	node int32
	set  uint64
}

// newCoalitionForest flattens e's trees, works out where x goes at every
// split and which background rows go left there, the trees shared among
// workers goroutines (each fills its trees' places, so the result does not
// depend on them).
func newCoalitionForest(e *forest.Ensemble, x []float64, background [][]float64, varying []int, workers int) *coalitionForest {
	bit, pow := make([]uint64, len(x)), make([]int32, len(x))
	for k, i := range varying {
		bit[i] = 1 << k
		if k < tableFeatures {
			pow[i] = int32(pow3(k))
		}
	}
	c := &coalitionForest{e: e, rows: len(background), workers: workers, roots: make([]int32, len(e.Trees))}
	total := int32(0)
	for ti := range e.Trees {
		c.roots[ti] = total
		total += int32(len(e.Trees[ti].Nodes))
	}
	c.nodes = make([]cnode, total)
	cols := make([]chunkColumns, 0, (len(background)+chunkRows-1)/chunkRows)
	for from := 0; from < len(background); from += chunkRows {
		cols = append(cols, newChunkColumns(e, background[from:min(from+chunkRows, len(background))]))
		c.lefts = append(c.lefts, make([]uint64, total))
	}
	eachTree(len(e.Trees), workers, func(ti int) {
		base := c.roots[ti]
		for ni := range e.Trees[ti].Nodes {
			n := &e.Trees[ti].Nodes[ni]
			cn := cnode{left: -1, value: n.Value}
			if !n.Leaf() {
				cn = cnode{left: base + int32(n.Left), right: base + int32(n.Right), vbit: bit[n.Feature], vpow: pow[n.Feature]}
				cn.next = base + int32(e.Next(n, e.Input(x[n.Feature])))
				for ch := range cols {
					c.lefts[ch][base+int32(ni)] = cols[ch].left(e, n)
				}
			}
			c.nodes[base+int32(ni)] = cn
		}
	})
	return c
}

// eachTree calls f for every tree index below n, shared among workers
// goroutines.
func eachTree(n, workers int, f func(ti int)) {
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for ti := w; ti < n; ti += workers {
				f(ti)
			}
		})
	}
	wg.Wait()
}

// chunkColumns are up to 64 background rows by feature, rounded as the
// ensemble compares, with the sets of rows missing (NaN) or zero in each.
type chunkColumns struct {
	rows      int
	col       []float64 // feature-major
	nan, zero []uint64
}

func newChunkColumns(e *forest.Ensemble, rows [][]float64) chunkColumns {
	nf := e.NumFeatures
	c := chunkColumns{rows: len(rows), col: make([]float64, nf*len(rows)), nan: make([]uint64, nf), zero: make([]uint64, nf)}
	for r, z := range rows {
		for j, v := range z[:nf] {
			v = e.Input(v)
			c.col[j*len(rows)+r] = v
			if v != v {
				c.nan[j] |= 1 << r
			} else if math.Abs(v) <= 1e-35 {
				c.zero[j] |= 1 << r
			}
		}
	}
	return c
}

// left returns the set of the chunk's rows that go left at split n.
func (c chunkColumns) left(e *forest.Ensemble, n *forest.Node) uint64 {
	var set uint64
	vals := c.col[n.Feature*c.rows : (n.Feature+1)*c.rows]
	if e.Compare == forest.Less {
		for r, v := range vals {
			set |= one(v < n.Threshold) << r
		}
	} else {
		for r, v := range vals {
			set |= one(v <= n.Threshold) << r
		}
	}
	odd := c.nan[n.Feature]
	if n.Missing == forest.MissingZero {
		odd |= c.zero[n.Feature]
	}
	for ; odd != 0; odd &= odd - 1 { // Next's rules for missing values
		r := bits.TrailingZeros64(odd)
		set &^= 1 << r
		if e.Next(n, vals[r]) == n.Left {
			set |= 1 << r
		}
	}
	return set
}

// one is 1 for true.
func one(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// values returns v(S) of each coalition (bit k: varying feature k takes
// x's value): the mean of e's raw output over the hybrid rows.
func (c *coalitionForest) values(masks []uint64) ([]float64, error) {
	acc := make([]float64, len(masks)) // per coalition: the sum of leaf value x rows reaching it
	per := (len(masks) + c.workers - 1) / c.workers
	var wg sync.WaitGroup
	for from := 0; from < len(masks); from += per {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			c.walkAll(masks[from:to], acc[from:to])
		}(from, min(from+per, len(masks)))
	}
	wg.Wait()
	v := make([]float64, len(masks))
	for m, a := range acc {
		v[m] = c.e.Base + c.e.Scale*a/float64(c.rows)
	}
	return v, nil
}

// walkAll adds, for each coalition of masks, every tree's leaf values
// weighted by the background rows reaching them to acc[m], tree after tree.
func (c *coalitionForest) walkAll(masks []uint64, acc []float64) {
	stack := make([]frame, 0, 64)
	for _, root := range c.roots {
		for m, mask := range masks {
			sum := 0.0
			for ch, left := range c.lefts {
				n := min(chunkRows, c.rows-ch*chunkRows)
				sum, stack = c.walk(root, 1<<n-1, mask, left, sum, stack)
			}
			acc[m] += sum
		}
	}
}

// walk takes the rows of set down the tree from node i for coalition
// mask and returns sum plus each reached leaf's value times the rows of
// set that reach it; stack is scratch space, returned for reuse.
func (c *coalitionForest) walk(i int32, set, mask uint64, left []uint64, sum float64, stack []frame) (float64, []frame) {
	for {
		n := &c.nodes[i]
		if n.left < 0 {
			sum += n.value * float64(bits.OnesCount64(set))
			if len(stack) == 0 {
				return sum, stack
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			i, set = top.node, top.set
			continue
		}
		if mask&n.vbit != 0 {
			i = n.next
			continue
		}
		l := set & left[i]
		switch l {
		case 0:
			i = n.right
		case set:
			i = n.left
		default:
			stack = append(stack, frame{n.right, set &^ l})
			i, set = n.left, l
		}
	}
}
