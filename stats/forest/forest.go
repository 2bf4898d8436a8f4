package forest

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
)

// ErrInvalid is wrapped by every error about a model that cannot be read
// or used: an API answers 422 for it.
var ErrInvalid = errors.New("invalid tree model")

// invalid wraps ErrInvalid with a message.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Compare is how a split sends an input to its left child.
type Compare uint8

const (
	// Less sends x < threshold left (XGBoost).
	Less Compare = iota
	// LessEqual sends x <= threshold left (LightGBM, scikit-learn).
	LessEqual
)

// Missing is what a split treats as missing, besides NaN.
type Missing uint8

const (
	// MissingNaN treats only NaN as missing.
	MissingNaN Missing = iota
	// MissingZero treats NaN and 0 as missing (LightGBM's missing_type Zero).
	MissingZero
	// MissingNone treats nothing as missing: NaN is compared as 0 (LightGBM's
	// missing_type None).
	MissingNone
)

// A Node is one node of a Tree. A leaf has Left == -1.
type Node struct {
	Left, Right int     // children, -1 on a leaf
	DefaultLeft bool    // where a missing value goes
	Feature     int     // split feature
	Threshold   float64 // split threshold
	Missing     Missing // what counts as missing at this split
	Value       float64 // leaf value (unused on a split)
	Cover       float64 // training weight that reached the node
}

// Leaf reports whether the node is a leaf.
func (n *Node) Leaf() bool { return n.Left < 0 }

// A Tree is a binary decision tree; node 0 is the root.
type Tree struct {
	Nodes []Node
}

// An Ensemble is a set of trees whose leaf values add up to one output.
type Ensemble struct {
	Trees       []Tree
	Base        float64 // added once to the sum of the trees
	Scale       float64 // multiplies each tree's value (1, or 1/len(Trees) for an averaging forest)
	Compare     Compare
	Float32     bool     // compare inputs and thresholds in float32
	NumFeatures int      // features the model reads
	Features    []string // their names, when the artifact has them
	Link        string   // "identity" or "logit": what turns the raw output into the prediction

	flatCache atomic.Pointer[flatForest] // RawRows' layout, made on its first call
}

// Input rounds x as the model compares it (float32 where Float32 is set).
func (e *Ensemble) Input(x float64) float64 {
	if e.Float32 {
		return float64(float32(x))
	}
	return x
}

// Next returns the child of split node n that input value x (already
// rounded by Input) goes to.
func (e *Ensemble) Next(n *Node, x float64) int {
	switch {
	case math.IsNaN(x):
		if n.Missing == MissingNone {
			x = 0
		} else if n.DefaultLeft {
			return n.Left
		} else {
			return n.Right
		}
	case n.Missing == MissingZero && math.Abs(x) <= 1e-35: // LightGBM's kZeroThreshold
		if n.DefaultLeft {
			return n.Left
		}
		return n.Right
	}
	if e.Compare == Less {
		if x < n.Threshold {
			return n.Left
		}
		return n.Right
	}
	if x <= n.Threshold {
		return n.Left
	}
	return n.Right
}

// Leaf returns the leaf of tree t that row x reaches.
func (e *Ensemble) Leaf(t *Tree, x []float64) *Node {
	i := 0
	for {
		n := &t.Nodes[i]
		if n.Leaf() {
			return n
		}
		i = e.Next(n, e.Input(x[n.Feature]))
	}
}

// Raw returns the ensemble's raw output (margin) for row x.
func (e *Ensemble) Raw(x []float64) float64 {
	s := 0.0
	for i := range e.Trees {
		s += e.Leaf(&e.Trees[i], x).Value
	}
	return e.Base + e.Scale*s
}

// Predict maps a raw output through the link: the probability for logit.
func (e *Ensemble) Predict(x []float64) float64 {
	r := e.Raw(x)
	if e.Link == "logit" {
		return 1 / (1 + math.Exp(-r))
	}
	return r
}

// Validate checks that every tree is well formed: children in range,
// every node reached once from the root, features below NumFeatures,
// covers not negative, no tree deeper than MaxDepth. Parsers call it; a caller building an Ensemble by
// hand should too.
func (e *Ensemble) Validate() error {
	if len(e.Trees) == 0 {
		return invalid("the model has no trees")
	}
	if e.NumFeatures <= 0 {
		return invalid("the model reads no features")
	}
	if e.Scale == 0 || math.IsNaN(e.Scale) || math.IsInf(e.Scale, 0) {
		return invalid("the scale must be finite and not 0")
	}
	if math.IsNaN(e.Base) || math.IsInf(e.Base, 0) {
		return invalid("the base score must be finite")
	}
	for ti := range e.Trees {
		if err := e.validateTree(ti); err != nil {
			return err
		}
	}
	if d := e.MaxDepth(); d > MaxDepth {
		return invalid("a tree is %d levels deep; at most %d are read", d, MaxDepth)
	}
	return nil
}

// MaxDepth is the deepest tree Validate accepts: TreeSHAP keeps a path of
// d(d+1)/2 elements for depth d.
const MaxDepth = 512

// validateTree checks tree ti (see Validate).
func (e *Ensemble) validateTree(ti int) error {
	nodes := e.Trees[ti].Nodes
	if len(nodes) == 0 {
		return invalid("tree %d has no nodes", ti)
	}
	seen := make([]bool, len(nodes))
	stack := []int{0}
	seen[0] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &nodes[i]
		if n.Cover < 0 || math.IsNaN(n.Cover) || math.IsInf(n.Cover, 0) {
			return invalid("tree %d node %d has cover %v", ti, i, n.Cover)
		}
		if n.Leaf() {
			if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
				return invalid("tree %d leaf %d has value %v", ti, i, n.Value)
			}
			continue
		}
		if n.Feature < 0 || n.Feature >= e.NumFeatures {
			return invalid("tree %d node %d splits on feature %d of %d", ti, i, n.Feature, e.NumFeatures)
		}
		if math.IsNaN(n.Threshold) {
			return invalid("tree %d node %d has threshold NaN", ti, i)
		}
		for _, c := range [2]int{n.Left, n.Right} {
			if c <= 0 || c >= len(nodes) || seen[c] {
				return invalid("tree %d node %d has child %d out of range or reached twice", ti, i, c)
			}
			seen[c] = true
			stack = append(stack, c)
		}
	}
	return nil
}

// MaxDepth returns the depth of the deepest leaf over the trees (a root
// leaf has depth 0).
func (e *Ensemble) MaxDepth() int {
	best := 0
	for ti := range e.Trees {
		nodes := e.Trees[ti].Nodes
		type item struct{ node, depth int }
		stack := []item{{0, 0}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n := &nodes[it.node]
			if n.Leaf() {
				best = max(best, it.depth)
				continue
			}
			stack = append(stack, item{n.Left, it.depth + 1}, item{n.Right, it.depth + 1})
		}
	}
	return best
}
