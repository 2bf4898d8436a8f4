package forest_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/vigilhq/vigil/stats/forest"
)

// cartGolden is testdata/cart_golden.json, written by
// testdata/cart_golden.py: scikit-learn's DecisionTreeRegressor fitted on
// each case's training rows and its predictions on the held-out rows.
type cartGolden struct {
	MaxDepth int `json:"max_depth"`
	MinLeaf  int `json:"min_leaf"`
	Cases    []struct {
		Name        string      `json:"name"`
		TrainX      [][]float64 `json:"train_x"`
		TrainY      []float64   `json:"train_y"`
		HoldoutX    [][]float64 `json:"holdout_x"`
		Predictions []float64   `json:"predictions"`
		Nodes       int         `json:"nodes"`
		Leaves      int         `json:"leaves"`
		Depth       int         `json:"depth"`
	} `json:"cases"`
}

// TestFitCARTMatchesSklearn: on each golden case FitCART grows the tree
// scikit-learn grows (same node, leaf and depth counts) and predicts the
// held-out rows as it does to 1e-9.
func TestFitCARTMatchesSklearn(t *testing.T) {
	raw, err := os.ReadFile("testdata/cart_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g cartGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		rows := make([]int, len(c.TrainX))
		for i := range rows {
			rows[i] = i
		}
		e, err := forest.FitCART(c.TrainX, c.TrainY, rows, forest.CARTOptions{MaxDepth: g.MaxDepth, MinLeaf: g.MinLeaf})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		nodes, leaves := len(e.Trees[0].Nodes), 0
		for _, n := range e.Trees[0].Nodes {
			if n.Leaf() {
				leaves++
				if n.Cover < float64(g.MinLeaf) {
					t.Errorf("%s: got a leaf of %v rows, want at least %d", c.Name, n.Cover, g.MinLeaf)
				}
			}
		}
		if nodes != c.Nodes || leaves != c.Leaves || e.MaxDepth() != c.Depth {
			t.Errorf("%s: got %d nodes, %d leaves, depth %d; want %d, %d, %d", c.Name, nodes, leaves, e.MaxDepth(),
				c.Nodes, c.Leaves, c.Depth)
		}
		for i, x := range c.HoldoutX {
			if got, want := e.Raw(x), c.Predictions[i]; math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("%s: held-out row %d: got %v, want %v", c.Name, i, got, want)
			}
		}
	}
}

// TestFitCARTRules: a node stays a leaf at the depth bound, under twice
// the leaf size, or when its outputs are equal; equal splits go to the
// lower feature, then the lower threshold; bad input is refused.
func TestFitCARTRules(t *testing.T) {
	// Two identical features: the split is on feature 0, at 1.5.
	xs := [][]float64{}
	ys := []float64{}
	for i := range 40 {
		v := float64(i / 20)
		xs, ys = append(xs, []float64{v + 1, v + 1}), append(ys, v)
	}
	rows := make([]int, len(xs))
	for i := range rows {
		rows[i] = i
	}
	e, err := forest.FitCART(xs, ys, rows, forest.CARTOptions{MaxDepth: 6, MinLeaf: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.Trees[0].Nodes; len(n) != 3 || n[0].Feature != 0 || n[0].Threshold != 1.5 || n[1].Value != 0 || n[2].Value != 1 {
		t.Errorf("got nodes %+v, want one split on feature 0 at 1.5 into leaves 0 and 1", n)
	}
	// Two thresholds of one feature reduce the error equally (outputs 0
	// on 1-10, 1 on 11-30, 0 on 31-40): the lower one, 10.5, is taken.
	var sym [][]float64
	var symY []float64
	for i := 1; i <= 40; i++ {
		sym, symY = append(sym, []float64{float64(i)}), append(symY, map[bool]float64{true: 1}[i > 10 && i <= 30])
	}
	if e, err := forest.FitCART(sym, symY, rows, forest.CARTOptions{MaxDepth: 1, MinLeaf: 5}); err != nil || e.Trees[0].Nodes[0].Threshold != 10.5 {
		t.Errorf("got %+v (%v), want the split at 10.5 of the two equal ones", e, err)
	}
	f := func(name string, opt forest.CARTOptions, rows []int, wantNodes int) {
		t.Helper()
		e, err := forest.FitCART(xs, ys, rows, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := len(e.Trees[0].Nodes); got != wantNodes {
			t.Errorf("%s: got %d nodes, want %d", name, got, wantNodes)
		}
	}
	f("depth 0", forest.CARTOptions{MaxDepth: 0, MinLeaf: 1}, rows, 1)
	f("under twice the leaf size", forest.CARTOptions{MaxDepth: 6, MinLeaf: 21}, rows, 1)
	f("equal outputs", forest.CARTOptions{MaxDepth: 6, MinLeaf: 1}, rows[:20], 1)
	f("no split leaves enough rows", forest.CARTOptions{MaxDepth: 6, MinLeaf: 11}, append(rows[:10:10], rows[20:]...), 1)
	for _, bad := range []struct {
		name string
		xs   [][]float64
		ys   []float64
	}{
		{"NaN input", [][]float64{{math.NaN()}}, []float64{1}},
		{"infinite output", [][]float64{{1}}, []float64{math.Inf(1)}},
		{"ragged", [][]float64{{1}, {1, 2}}, []float64{1, 2}},
	} {
		r := make([]int, len(bad.xs))
		for i := range r {
			r[i] = i
		}
		if _, err := forest.FitCART(bad.xs, bad.ys, r, forest.CARTOptions{MaxDepth: 6, MinLeaf: 1}); err == nil {
			t.Errorf("%s: got no error", bad.name)
		}
	}
}
