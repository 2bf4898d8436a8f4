package quantile

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// golden is testdata/golden.json, written by testdata/golden.py with the
// reference DDSketch (ddsketch on PyPI).
type golden struct {
	DDSketchVersion string    `json:"ddsketch_version"`
	Sketch          string    `json:"sketch"`
	Alpha           float64   `json:"alpha"`
	Quantiles       []float64 `json:"quantiles"`
	Datasets        []struct {
		Name     string    `json:"name"`
		Values   []float64 `json:"values"`
		Exact    []float64 `json:"exact"`
		DDSketch []float64 `json:"ddsketch"`
	} `json:"datasets"`
}

// TestGolden cross-checks with the reference implementation: on the same
// data, both it and this sketch must be within α of the exact quantile (the
// reference computes the same rank), and the test reports how close the two
// are. They need not agree bit for bit: this sketch maps with α − 1e-11 and
// a table-based logarithm, and returns the exact Min and Max for q = 0 and 1
// and clamps to them.
func TestGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatalf("read golden data: %v", err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("parse golden data: %v", err)
	}
	if g.Alpha != DefaultAlpha || len(g.Datasets) == 0 {
		t.Fatalf("golden data: alpha %v, %d datasets; want %v and some", g.Alpha, len(g.Datasets), DefaultAlpha)
	}
	var (
		checked, identical, close, extremes int
		maxDiff, sumDiff                    float64
		maxSame                             float64 // largest difference within the same bucket
		worstOurs, worstPy                  float64
	)
	for _, d := range g.Datasets {
		s := sketchOf(t, g.Alpha, d.Values)
		sorted := slices.Clone(d.Values)
		slices.Sort(sorted)
		dsMax := 0.0
		for i, q := range g.Quantiles {
			want := exactQuantile(sorted, q)
			if want != d.Exact[i] {
				t.Errorf("%s q=%v: exact quantile %v here, %v in Python: rank conventions differ", d.Name, q, want, d.Exact[i])
			}
			got, err := s.Quantile(q)
			if err != nil {
				t.Fatalf("%s: Quantile(%v): %v", d.Name, q, err)
			}
			py := d.DDSketch[i]
			if e := relErr(got, want); e > g.Alpha {
				t.Errorf("%s: Quantile(%v) = %v, want %v ± 1%% (error %.3g)", d.Name, q, got, want, e)
			}
			if e := relErr(py, want); e > g.Alpha {
				t.Errorf("%s q=%v: reference %v, want %v ± 1%% (error %.3g)", d.Name, q, py, want, e)
			}
			worstOurs = max(worstOurs, relErr(got, want))
			worstPy = max(worstPy, relErr(py, want))
			diff := relErr(got, py)
			if py == 0 && got == 0 {
				diff = 0
			}
			if diff > 2*g.Alpha/(1-g.Alpha) {
				t.Errorf("%s q=%v: %v here, %v in the reference: further apart than two α", d.Name, q, got, py)
			}
			switch {
			case got == py:
				identical++
			case diff <= 1e-6: // the same bucket; α − 1e-11 moves representatives by ~1e-9
				close++
				maxSame = max(maxSame, diff)
			case got == s.Min() || got == s.Max(): // rank 0 or n−1, or clamped: exact here, a bucket there
				extremes++
			default:
				t.Logf("%s q=%v: %v here, %v in the reference (relative difference %.3g)", d.Name, q, got, py, diff)
			}
			checked++
			sumDiff += diff
			maxDiff, dsMax = max(maxDiff, diff), max(dsMax, diff)
		}
		t.Logf("%-18s n=%-5d largest relative difference from the reference %.3g", d.Name, len(d.Values), dsMax)
	}
	t.Logf("reference %s, %s: %d quantiles: %d bit-identical, %d the same bucket (differing by at most %.2g), %d where this sketch returns the exact Min or Max (rank 0 or n−1, or clamped), %d in another bucket; "+
		"relative difference mean %.3g max %.3g; worst error vs exact: ours %.4g, reference %.4g",
		g.DDSketchVersion, g.Sketch, checked, identical, close, maxSame, extremes, checked-identical-close-extremes,
		sumDiff/float64(checked), maxDiff, worstOurs, worstPy)
	if math.IsNaN(maxDiff) {
		t.Errorf("NaN difference")
	}
}
