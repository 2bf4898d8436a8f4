package forest_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/stats/forest"
)

// TestRawRowsEqualsRaw checks RawRows' flat, level-by-level evaluation
// against Raw's walk of the nodes, bit for bit, on random ensembles (every
// comparison, rounding and missing-value rule) and 1 to 200 rows (across
// blocks), with NaN and zeros in some rows only and in none.
func TestRawRowsEqualsRaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	for trial := range 400 {
		nf := 1 + rng.IntN(7)
		e := forest.Random(rng, nf)
		if err := e.Validate(); err != nil {
			t.Fatal(err)
		}
		plain := trial%2 == 0 // no NaN, no zero: the flat walk only
		rows := make([][]float64, 1+rng.IntN(200))
		for r := range rows {
			rows[r] = make([]float64, nf+rng.IntN(2)) // a row may hold more than the model reads
			for j := range rows[r] {
				v := forest.RandomInput(rng)
				for plain && (math.IsNaN(v) || v == 0) {
					v = forest.RandomInput(rng)
				}
				rows[r][j] = v
			}
		}
		got := make([]float64, len(rows))
		e.RawRows(rows, got)
		for r, x := range rows {
			if want := e.Raw(x); math.Float64bits(got[r]) != math.Float64bits(want) {
				t.Fatalf("trial %d row %d %v: got %v, want %v", trial, r, x, got[r], want)
			}
		}
	}
}
