package fairness

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// naiveTally counts with a map, one row at a time.
func naiveTally(values []string, pred, truth []bool) (map[string][cells]int64, [cells]int64) {
	out := map[string][cells]int64{}
	var missing [cells]int64
	for i, v := range values {
		c := cell(pred, truth, i)
		if v == "" {
			missing[c]++
			continue
		}
		x := out[v]
		x[c]++
		out[v] = x
	}
	return out, missing
}

// TestTallyChunks counts more rows than one chunk holds, with labels that
// first appear in different chunks and more labels than the dictionary's
// first table holds, and compares with a plain map count.
func TestTallyChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	f := func(n, labels int, withTruth bool) {
		t.Helper()
		values, pred, truth := make([]string, n), make([]bool, n), make([]bool, n)
		for i := range values {
			k := r.IntN(labels + 1)
			if i > n/2 {
				k = r.IntN(2*labels + 1) // labels seen only in later chunks
			}
			if k > 0 {
				values[i] = fmt.Sprintf("g%02d", k)
			}
			pred[i], truth[i] = r.IntN(2) == 0, r.IntN(3) == 0
		}
		if !withTruth {
			truth = nil
		}
		got := tallyValues(values, pred, truth)
		want, missing := naiveTally(values, pred, truth)
		if len(got.levels) != len(want) || got.missing != missing {
			t.Fatalf("n %d: got %d levels, missing %v; want %d, %v", n, len(got.levels), got.missing, len(want), missing)
		}
		for i, l := range got.levels {
			if got.cellsOf(i) != want[l] {
				t.Errorf("n %d: %s: got %v, want %v", n, l, got.cellsOf(i), want[l])
			}
		}
	}
	f(10, 3, true)
	f(3*chunkRows+17, 3, true)
	f(3*chunkRows+17, 20, false)
	f(2*chunkRows, 40, true)
}

func TestDictionary(t *testing.T) {
	var d dictionary
	for round := range 2 {
		for i := range 20 {
			if got := d.code(fmt.Sprint(i)); got != i {
				t.Fatalf("round %d: code(%d): got %d, want %d", round, i, got, i)
			}
		}
	}
	if len(d.levels) != 20 || len(d.slots) < 40 {
		t.Errorf("got %d levels in %d slots, want 20 in at least 40", len(d.levels), len(d.slots))
	}
}
