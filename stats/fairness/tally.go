package fairness

import (
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A group's confusion counts are four cells, indexed label·2 + prediction.
const (
	cellTN = iota // label unfavourable, predicted unfavourable
	cellFP        // label unfavourable, predicted favourable
	cellFN        // label favourable, predicted unfavourable
	cellTP        // label favourable, predicted favourable
	cells
)

// Without labels every row counts as label unfavourable: cellTN holds the
// unselected rows and cellFP the selected ones.

// tally is one attribute counted in one pass: four cells per level.
//
// Each attribute is counted in one pass: a row adds 1 to one of four cells
// of its group (label × prediction), indexed by a small integer code, with
// no map and no data-dependent branch in the loop. String labels are coded
// while counting by a per-chunk dictionary (a small open-addressing table
// hashed on the label's length and end bytes, so usually one string
// comparison per row); the encoded form (Levels, Codes) skips even that.
// Rows are split into one chunk per core, and chunks merge by label. bench_test.go times 10
// million rows; testdata/bench_fairlearn.py times fairlearn's MetricFrame
// on the same rows (testdata/synthetic.py and synthetic_test.go write the
// same seeded formula).
type tally struct {
	levels  []string
	counts  []int64
	missing [cells]int64
}

// chunkRows is the fewest rows worth a goroutine of their own.
const chunkRows = 1 << 17

// inChunks splits n rows into up to GOMAXPROCS contiguous chunks, runs
// work on each concurrently and returns how many there were.
func inChunks(n int, work func(part, lo, hi int)) int {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/chunkRows))
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Go(func() { work(p, lo, hi) })
	}
	wg.Wait()
	return parts
}

// rowCells reads the cell of each row without branching on the data:
// without labels it reads the predictions twice and masks the label bit off.
type rowCells struct {
	pred, truth []bool
	labelMask   int
}

func newRowCells(pred, truth []bool) rowCells {
	if truth == nil {
		return rowCells{pred, pred, 0}
	}
	return rowCells{pred, truth, cellFN}
}

// at returns the cell of row i.
func (r rowCells) at(i int) int { return b2i(r.pred[i]) | (b2i(r.truth[i])*cellFN)&r.labelMask }

// b2i is 1 for true; the compiler turns it into a byte load.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cell returns the cell of row i (for tests and slow paths).
func cell(pred, truth []bool, i int) int { return newRowCells(pred, truth).at(i) }

// tallyValues counts string-labelled rows: each chunk encodes its labels
// with its own dictionary while counting, and the chunks are merged by label.
func tallyValues(values []string, pred, truth []bool) tally {
	parts := make([]tally, runtime.GOMAXPROCS(0))
	n := inChunks(len(values), func(p, lo, hi int) {
		parts[p] = tallyValueChunk(values[lo:hi], pred[lo:hi], sliceOrNil(truth, lo, hi))
	})
	return mergeTallies(parts[:n])
}

func sliceOrNil(v []bool, lo, hi int) []bool {
	if v == nil {
		return nil
	}
	return v[lo:hi]
}

func tallyValueChunk(values []string, pred, truth []bool) tally {
	var t tally
	var d dictionary
	var counts []int64
	rc := newRowCells(pred, truth)
	for i, v := range values {
		c := rc.at(i)
		if v == "" {
			t.missing[c]++
			continue
		}
		code := d.code(v)
		if code*cells >= len(counts) {
			counts = append(counts, make([]int64, cells)...)
		}
		counts[code*cells+c]++
	}
	t.levels, t.counts = d.levels, counts
	return t
}

// mergeTallies adds up chunk tallies whose levels differ in order.
func mergeTallies(parts []tally) tally {
	if len(parts) == 1 {
		return parts[0]
	}
	var out tally
	var d dictionary
	for _, p := range parts {
		for c := range cells {
			out.missing[c] += p.missing[c]
		}
		for i, l := range p.levels {
			code := d.code(l)
			if code*cells >= len(out.counts) {
				out.counts = append(out.counts, make([]int64, cells)...)
			}
			for c := range cells {
				out.counts[code*cells+c] += p.counts[i*cells+c]
			}
		}
	}
	out.levels = d.levels
	return out
}

// tallyCodes counts dictionary-encoded rows, or reports the first code
// outside levels.
func tallyCodes(name string, levels []string, codes []int32, pred, truth []bool) (tally, error) {
	k := len(levels)
	parts := make([]tally, runtime.GOMAXPROCS(0))
	bad := make([]int, len(parts))
	n := inChunks(len(codes), func(p, lo, hi int) {
		parts[p], bad[p] = tallyCodeChunk(k, codes[lo:hi], pred[lo:hi], sliceOrNil(truth, lo, hi))
		if bad[p] >= 0 {
			bad[p] += lo
		}
	})
	out := tally{levels: levels, counts: make([]int64, k*cells)}
	for p := range n {
		if bad[p] >= 0 {
			return tally{}, badCode(name, codes[bad[p]], bad[p], k)
		}
		for c := range cells {
			out.missing[c] += parts[p].missing[c]
		}
		for i, v := range parts[p].counts {
			out.counts[i] += v
		}
	}
	return out, nil
}

// tallyCodeChunk counts one chunk; the second result is the index of the
// first code outside [−∞, k), or −1.
func tallyCodeChunk(k int, codes []int32, pred, truth []bool) (tally, int) {
	var t tally
	counts := make([]int64, k*cells)
	rc := newRowCells(pred, truth)
	for i, code := range codes {
		c := rc.at(i)
		switch {
		case code < 0:
			t.missing[c]++
		case int(code) >= k:
			return t, i
		default:
			counts[int(code)*cells+c]++
		}
	}
	t.counts = counts
	return t, -1
}

// order returns the level indices sorted by label, the order of groups in a
// report (and of fairlearn's by_group).
func (t tally) order() []int {
	idx := make([]int, len(t.levels))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(t.levels[a], t.levels[b]) })
	return idx
}

// cellsOf returns the four counts of level i.
func (t tally) cellsOf(i int) [cells]int64 {
	return [cells]int64(t.counts[i*cells : (i+1)*cells])
}
