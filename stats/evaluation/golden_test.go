package evaluation

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"testing"
)

// goldenFile is written by testdata/generate.py from scikit-learn.
type goldenFile struct {
	Versions map[string]string `json:"versions"`
	Cases    []goldenCase      `json:"cases"`
}

type goldenCase struct {
	Name     string             `json:"name"`
	Request  json.RawMessage    `json:"request"`
	Expected map[string]float64 `json:"expected"`
	Errors   map[string]string  `json:"errors"`
}

// Tolerance against scikit-learn: 1e-9 relative, or 1e-15 absolute for
// values under 1e-6 in magnitude. The same for every metric; in practice
// the sums follow NumPy's (sum.go) and most values are bit-identical.
const (
	relTol   = 1e-9
	absFloor = 1e-6
)

func closeEnough(got, want float64) bool {
	return math.Abs(got-want) <= relTol*math.Max(math.Abs(want), absFloor)
}

func loadGolden(t testing.TB) goldenFile {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatalf("read golden: %v", err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("decode golden: %v", err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("golden.json has no cases")
	}
	return g
}

// TestGolden checks every case twice: all its metrics in one request (which
// must fail if any metric fails in scikit-learn) and each metric alone.
//
// testdata/generate.py computes testdata/golden.json with scikit-learn (see
// its header for the pinned versions and how to run it); golden_test.go
// checks every case to 1e-9 relative (1e-15 absolute below 1e-6).
func TestGolden(t *testing.T) {
	g := loadGolden(t)
	t.Logf("golden cases: %d (scikit-learn %s, numpy %s)", len(g.Cases), g.Versions["scikit-learn"], g.Versions["numpy"])
	var exact, total int
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			req, err := ParseRequest(c.Request)
			if err != nil {
				t.Fatalf("ParseRequest: %v", err)
			}
			all := slices.Clone(req.Metrics)
			res, err := Compute(req)
			if len(c.Errors) > 0 {
				if err == nil {
					t.Errorf("all metrics: got %v, want an error (scikit-learn: %v)", res.Metrics, c.Errors)
				}
			} else if err != nil {
				t.Fatalf("all metrics: got error %v, want %v", err, c.Expected)
			} else {
				for m, want := range c.Expected {
					if got := res.Metrics[m]; !closeEnough(got, want) {
						t.Errorf("all metrics: %s: got %.17g, want %.17g", m, got, want)
					}
				}
			}
			for _, m := range all {
				one := req
				one.Metrics = []string{m}
				res, err := Compute(one)
				if why, ok := c.Errors[m]; ok {
					if err == nil {
						t.Errorf("%s alone: got %.17g, want an error (scikit-learn: %s)", m, res.Metrics[m], why)
					} else if !errors.Is(err, ErrInvalid) {
						t.Errorf("%s alone: error %v does not wrap ErrInvalid", m, err)
					}
					continue
				}
				want := c.Expected[m]
				if err != nil {
					t.Errorf("%s alone: got error %v, want %.17g", m, err, want)
					continue
				}
				got := res.Metrics[m]
				total++
				if got == want {
					exact++
				}
				if !closeEnough(got, want) {
					t.Errorf("%s alone: got %.17g, want %.17g (diff %.3g)", m, got, want, got-want)
				}
			}
		})
	}
	t.Logf("values bit-identical to scikit-learn: %d of %d", exact, total)
}
