package modelserver_test

import (
	"context"
	"encoding/json"
	"math"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/vigilhq/vigil/explanation/modelserver"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/stats/lime"
	"github.com/vigilhq/vigil/stats/shap"
)

// golden is testdata/golden.json, written by testdata/generate.py: shap's
// KernelExplainer and lime's LimeTabularExplainer of server.py's model.
type golden struct {
	Features []string `json:"features"`
	Kernel   struct {
		Background [][]float64 `json:"background"`
		Rows       [][]float64 `json:"rows"`
		Base       float64     `json:"base"`
		Values     [][]float64 `json:"values"`
		Outputs    []float64   `json:"outputs"`
	} `json:"kernel"`
	Lime struct {
		KernelWidth float64      `json:"kernel_width"`
		NumFeatures int          `json:"num_features"`
		Rows        [][]float64  `json:"rows"`
		Scaled      [][]float64  `json:"scaled"`
		Intercept   float64      `json:"intercept"`
		Weights     [][2]float64 `json:"weights"`
		Score       float64      `json:"score"`
		LocalPred   float64      `json:"local_pred"`
	} `json:"lime"`
}

func loadGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// loopback is a guard that allows the test's loopback server.
var loopback = &outbound.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*max(1, math.Abs(want)) }

// TestServedMatchesShapAndLime runs a real scikit-learn model behind
// server.py and explains it through each protocol: Kernel SHAP (every
// coalition of 4 features over 12 background rows) equals
// shap.KernelExplainer to 1e-9, and LIME on lime's own perturbation
// sample, labelled by the server, equals LimeTabularExplainer to 1e-9.
// Every request carries at most MaxBatch rows, and there are
// ceil(rows/MaxBatch) of them.
func TestServedMatchesShapAndLime(t *testing.T) {
	g := loadGolden(t)
	srv := testenv.StartModelServer(t, "testdata/server.py")
	for _, protocol := range modelserver.Protocols {
		t.Run(protocol, func(t *testing.T) {
			end := modelserver.Endpoint{Protocol: protocol, URL: srv.URL, ModelName: "credit", Features: g.Features,
				Timeout: 30 * time.Second, MaxBatch: 64, RequestBudget: 100}
			if protocol == modelserver.MLflow {
				end.ModelName = ""
			}
			for i, x := range g.Kernel.Rows {
				c, err := modelserver.New(loopback, end)
				if err != nil {
					t.Fatal(err)
				}
				model := func(rows [][]float64) ([]float64, error) { return c.Predict(context.Background(), rows) }
				before := len(srv.Batches(t))
				r, err := shap.Kernel(model, x, g.Kernel.Background, shap.KernelOptions{})
				if err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				if !r.Exact || !near(r.Base, g.Kernel.Base, 1e-9) || !near(r.Output, g.Kernel.Outputs[i], 1e-9) {
					t.Errorf("row %d: got exact %v base %v output %v, want exact base %v output %v", i, r.Exact, r.Base, r.Output,
						g.Kernel.Base, g.Kernel.Outputs[i])
				}
				for j, want := range g.Kernel.Values[i] {
					if !near(r.Values[j], want, 1e-9) {
						t.Errorf("row %d feature %d: got %v, want %v", i, j, r.Values[j], want)
					}
				}
				// x alone, the empty coalition (12 rows), then the 16
				// coalitions × 12 rows = 192 rows in 3 requests of 64.
				batches := srv.Batches(t)[before:]
				if len(batches) != c.Requests() || len(batches) != 5 {
					t.Fatalf("row %d: got %d batches (%d counted), want 5", i, len(batches), c.Requests())
				}
				for _, n := range batches {
					if n > end.MaxBatch {
						t.Errorf("row %d: a request of %d rows, want at most %d", i, n, end.MaxBatch)
					}
				}
			}
			c, err := modelserver.New(loopback, end)
			if err != nil {
				t.Fatal(err)
			}
			labels, err := c.Predict(context.Background(), g.Lime.Rows)
			if err != nil {
				t.Fatal(err)
			}
			if c.Requests() != 5 {
				t.Errorf("LIME's 300 rows: got %d requests, want 5", c.Requests())
			}
			ex, err := lime.Explain(lime.Input{Scaled: g.Lime.Scaled, Labels: labels, KernelWidth: g.Lime.KernelWidth,
				NumFeatures: g.Lime.NumFeatures})
			if err != nil {
				t.Fatal(err)
			}
			if !near(ex.Intercept, g.Lime.Intercept, 1e-9) || !near(ex.Score, g.Lime.Score, 1e-9) || !near(ex.LocalPred, g.Lime.LocalPred, 1e-9) {
				t.Errorf("LIME: got intercept %v score %v local %v, want %v %v %v", ex.Intercept, ex.Score, ex.LocalPred,
					g.Lime.Intercept, g.Lime.Score, g.Lime.LocalPred)
			}
			for i, w := range g.Lime.Weights {
				if got := ex.Weights[i]; got.Feature != int(w[0]) || !near(got.Weight, w[1], 1e-9) {
					t.Errorf("LIME weight %d: got feature %d %v, want %v %v", i, got.Feature, got.Weight, w[0], w[1])
				}
			}
		})
	}
}
