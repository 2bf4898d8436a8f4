package fairness

import (
	"testing"
)

// The seeded synthetic rows of the benchmarks, the formula of
// testdata/synthetic.py (see there). golden.json holds 3000 of them, which
// TestSyntheticMatchesPython compares, so the Go benchmark and
// bench_fairlearn.py time the same rows.

const syntheticSeed = 20260917

var (
	syntheticGenders = []string{"female", "male", "nonbinary"}
	syntheticRaces   = []string{"white", "black", "asian", "hispanic", "other"}
)

func splitmix64(i uint64) uint64 {
	z := (i + syntheticSeed) * 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// bucket returns the index of the first cut above v, or len(cuts).
func bucket(v uint64, cuts ...uint64) int32 {
	for i, c := range cuts {
		if v < c {
			return int32(i)
		}
	}
	return int32(len(cuts))
}

// syntheticRows returns n rows: gender and race codes (indices into
// syntheticGenders and syntheticRaces), labels and predictions.
func syntheticRows(n int) (gender, race []int32, truth, pred []bool) {
	gender, race, truth, pred = make([]int32, n), make([]int32, n), make([]bool, n), make([]bool, n)
	for i := range n {
		h := splitmix64(uint64(i))
		p, q := (h&0xFFFF)%100, ((h>>16)&0xFFFF)%100
		r, s := ((h>>32)&0xFFFF)%1000, ((h>>48)&0xFFFF)%1000
		gender[i], race[i] = bucket(p, 45, 95), bucket(q, 60, 75, 88, 97)
		base, tpr, fpr := uint64(300), uint64(800), uint64(150)
		switch gender[i] {
		case 0:
			tpr = 700
		case 1:
			base, fpr = 350, 200
		}
		truth[i] = r < base
		pred[i] = (truth[i] && s < tpr) || (!truth[i] && s < fpr)
	}
	return gender, race, truth, pred
}

// labelled turns codes into their labels.
func labelled(levels []string, codes []int32) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = levels[c]
	}
	return out
}

func TestSyntheticMatchesPython(t *testing.T) {
	g := readGolden(t)
	for _, c := range g.Cases {
		if c.Name != "synthetic_formula_n3000" {
			continue
		}
		in := c.Input.toInput(t)
		gender, race, truth, pred := syntheticRows(len(in.Pred))
		cols := [][]string{labelled(syntheticGenders, gender), labelled(syntheticRaces, race)}
		for i := range in.Pred {
			if in.Pred[i] != pred[i] || in.Truth[i] != truth[i] || in.Attributes[0].Values[i] != cols[0][i] || in.Attributes[1].Values[i] != cols[1][i] {
				t.Fatalf("row %d: got %s %s %v %v, want %s %s %v %v", i, cols[0][i], cols[1][i], truth[i], pred[i],
					in.Attributes[0].Values[i], in.Attributes[1].Values[i], in.Truth[i], in.Pred[i])
			}
		}
		return
	}
	t.Fatal("golden.json has no synthetic_formula_n3000 case")
}
