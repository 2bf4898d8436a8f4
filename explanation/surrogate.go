package explanation

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/solver"
)

// Surrogate sizes: a surrogate is fitted on the newest SurrogateRows
// logged predictions and needs MinSurrogateRows usable ones; every fifth
// usable row (oldest first) is held out to measure its fidelity, and up to
// surrogateBackground of the others are the background of a request that
// sends none when the model has no drift reference; as many of the newest
// logged predictions are the background of a served model or an artifact
// in that case.
const (
	SurrogateRows       = 2000
	MinSurrogateRows    = 50
	surrogateBackground = 100
)

// Kinds of surrogate, and the bounds of the tree one.
const (
	SurrogateLinear  = "linear"
	SurrogateTree    = "tree"
	surrogateDepth   = 6
	surrogateMinLeaf = 10
)

// A SurrogateChoice says which surrogate explained a model (Kind) and the
// held-out fidelity value of each kind fitted (Fidelities, by kind, in
// the chosen one's metric).
type SurrogateChoice struct {
	Kind       string             `json:"kind"`
	Fidelities map[string]float64 `json:"fidelities"`
}

// A LoggedPrediction is one logged prediction's input_data and
// output_data.
type LoggedPrediction struct {
	Input, Output json.RawMessage
}

// PredictionLog reads logged predictions for surrogates; the analytical
// store is one, adapted in app.
type PredictionLog interface {
	// LoggedPredictions returns up to limit of the model's newest logged
	// predictions, newest first.
	LoggedPredictions(ctx context.Context, orgID, modelID string, limit int) ([]LoggedPrediction, error)
}

// Fidelity is how well a surrogate reproduces the model on held-out
// logged predictions: r2 for numeric outputs, accuracy (the surrogate's
// output rounded at 0.5) when every output is 0 or 1.
type Fidelity struct {
	Metric      string  `json:"metric"`
	Value       float64 `json:"value"`
	TrainRows   int     `json:"train_rows"`
	HoldoutRows int     `json:"holdout_rows"`
}

// A Surrogate is a model fitted on a model's logged predictions:
// input_data's numeric fields (those of the newest prediction) to
// output_data's prediction (a number, or a boolean as 0 or 1). Two are
// fitted on the same training rows, a linear model by least squares and a
// regression tree by CART (forest.FitCART, depth at most 6, leaves of at
// least 10 rows), and the one with the higher fidelity on the held-out
// rows is kept (the linear one on a tie). It is fitted afresh for each
// explanation from the predictions logged by then (the refit rule: no
// fitted surrogate is kept), so it follows the model as it is logged. Its
// explanations are exact for the surrogate (linear SHAP, or TreeSHAP of
// the tree) and approximate for the model.
type Surrogate struct {
	// Artifact is the kept model as an artifact: linear, or a tree
	// (KindTree).
	Artifact artifact.Artifact
	Fidelity Fidelity
	Choice   SurrogateChoice
	// background is up to surrogateBackground training rows.
	background []map[string]any
}

// surrogate fits the model's surrogate: 422 on model_id when too few
// logged predictions are usable.
func (a *Access) surrogate(ctx context.Context, orgID, modelID string) (*Surrogate, error) {
	if a.Logged == nil {
		return nil, noAccess(", and no logged predictions can be read to fit a surrogate")
	}
	logged, err := a.Logged.LoggedPredictions(ctx, orgID, modelID, SurrogateRows)
	if err != nil {
		return nil, err
	}
	sur, usable := FitSurrogate(logged)
	if sur == nil {
		return nil, noAccess(fmt.Sprintf(", and %d usable logged predictions: a surrogate needs at least %d "+
			"(numeric input_data fields, output_data.prediction a number or boolean)", usable, MinSurrogateRows))
	}
	sur.Artifact.OrgID, sur.Artifact.ModelID = orgID, modelID
	return sur, nil
}

// FitSurrogate fits a surrogate on logged (newest first) and says how
// many rows were usable; nil when fewer than MinSurrogateRows.
func FitSurrogate(logged []LoggedPrediction) (*Surrogate, int) {
	var features []string
	var xs [][]float64
	var ys []float64
	var inputs []map[string]any
	for i := len(logged) - 1; i >= 0; i-- {
		var in map[string]any
		if json.Unmarshal(logged[i].Input, &in) != nil {
			continue
		}
		if features == nil {
			features = numericFields(logged[0].Input)
		}
		y, ok := target(logged[i].Output)
		row, full := make([]float64, len(features)), ok && len(features) > 0
		for j, f := range features {
			v, isNum := in[f].(float64)
			full = full && isNum
			row[j] = v
		}
		if full {
			xs, ys, inputs = append(xs, row), append(ys, y), append(inputs, in)
		}
	}
	if len(xs) < MinSurrogateRows {
		return nil, len(xs)
	}
	var train, hold []int
	for i := range xs {
		if i%5 == 4 {
			hold = append(hold, i)
		} else {
			train = append(train, i)
		}
	}
	coef, intercept := leastSquares(xs, ys, train)
	s := &Surrogate{Artifact: artifact.Artifact{Kind: artifact.KindLinear, Features: features, Coefficients: coef, Intercept: intercept,
		Link: "identity", NumFeatures: len(features)}}
	s.Fidelity = fidelity(ys, hold, func(i int) float64 {
		p := intercept
		for j, c := range coef {
			p += c * xs[i][j]
		}
		return p
	})
	s.Choice = SurrogateChoice{Kind: SurrogateLinear, Fidelities: map[string]float64{SurrogateLinear: s.Fidelity.Value}}
	if tree, err := forest.FitCART(xs, ys, train, forest.CARTOptions{MaxDepth: surrogateDepth, MinLeaf: surrogateMinLeaf}); err == nil {
		f := fidelity(ys, hold, func(i int) float64 { return tree.Raw(xs[i]) })
		s.Choice.Fidelities[SurrogateTree] = f.Value
		if f.Value > s.Fidelity.Value {
			tree.Features = features
			s.Artifact = artifact.FittedTree(features, tree)
			s.Fidelity, s.Choice.Kind = f, SurrogateTree
		}
	}
	s.Fidelity.TrainRows = len(train)
	for _, i := range train[max(0, len(train)-surrogateBackground):] {
		b := make(map[string]any, len(features))
		for j, f := range features {
			b[f] = xs[i][j]
		}
		s.background = append(s.background, b)
	}
	return s, len(xs)
}

// numericFields returns the names of raw's number fields, sorted.
func numericFields(raw json.RawMessage) []string {
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	out := []string{}
	for k, v := range in {
		if _, ok := v.(float64); ok && len(k) <= serving.MaxFeatureName && k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// target reads output_data's prediction: a number, or a boolean as 0 or 1.
func target(raw json.RawMessage) (float64, bool) {
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return 0, false
	}
	switch v := out["prediction"].(type) {
	case float64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// leastSquares fits y ≈ intercept + coef·x on rows, features standardised
// for the solve (a feature constant on rows gets 0) with a tiny ridge
// term that keeps collinear features solvable.
func leastSquares(xs [][]float64, ys []float64, rows []int) ([]float64, float64) {
	m, n := len(xs[0]), float64(len(rows))
	mean, scale := make([]float64, m), make([]float64, m)
	ybar := 0.0
	for _, i := range rows {
		ybar += ys[i] / n
		for j, v := range xs[i] {
			mean[j] += v / n
		}
	}
	for _, i := range rows {
		for j, v := range xs[i] {
			scale[j] += (v - mean[j]) * (v - mean[j]) / n
		}
	}
	for j := range scale {
		scale[j] = math.Sqrt(scale[j])
	}
	a, b := make([]float64, m*m), make([]float64, m)
	z := make([]float64, m)
	for _, i := range rows {
		for j, v := range xs[i] {
			z[j] = 0
			if scale[j] > 0 {
				z[j] = (v - mean[j]) / scale[j]
			}
		}
		for j := range m {
			b[j] += z[j] * (ys[i] - ybar)
			for k := range m {
				a[j*m+k] += z[j] * z[k]
			}
		}
	}
	for j := range m {
		a[j*m+j] += 1e-12 * n
	}
	beta, _ := solver.Solve(a, b, m)
	coef, intercept := make([]float64, m), ybar
	for j := range m {
		if scale[j] > 0 {
			coef[j] = beta[j] / scale[j]
			intercept -= coef[j] * mean[j]
		}
	}
	return coef, intercept
}

// fidelity measures pred, a fit's output for row i, on the held-out rows.
func fidelity(ys []float64, hold []int, pred func(i int) float64) Fidelity {
	f := Fidelity{Metric: "r2", HoldoutRows: len(hold)}
	binary := true
	for _, y := range ys {
		binary = binary && (y == 0 || y == 1)
	}
	if binary {
		f.Metric, f.Value = "accuracy", 0
		for _, i := range hold {
			if (pred(i) >= 0.5) == (ys[i] == 1) {
				f.Value++
			}
		}
		f.Value /= float64(len(hold))
		return f
	}
	mean, res, tot := 0.0, 0.0, 0.0
	for _, i := range hold {
		mean += ys[i] / float64(len(hold))
	}
	for _, i := range hold {
		res += (ys[i] - pred(i)) * (ys[i] - pred(i))
		tot += (ys[i] - mean) * (ys[i] - mean)
	}
	f.Value = 1
	if tot > 0 {
		f.Value = 1 - res/tot
	} else if res > 0 {
		f.Value = 0
	}
	return f
}

// plan is planFor of req on s, reading req as s does: TreeSHAP of a
// tree surrogate is interventional, against the background rows of
// fallbacks when req sends none.
func (s *Surrogate) plan(req Request, method string, fallbacks []fallback) (plan, error) {
	return planning(&s.Artifact, s.request(req), method, fallbacks, true)
}

// request is req as the surrogate reads it: fields that are not numbers
// and not features of the surrogate are left out (it reads numbers only).
// Without background rows it takes the drift reference's, else the
// training rows (Access.surrogateFallbacks).
func (s *Surrogate) request(req Request) Request {
	out := req
	out.Instance = make(map[string]any, len(req.Instance))
	for k, v := range req.Instance {
		if _, num := v.(float64); num || slices.Contains(s.Artifact.Features, k) {
			out.Instance[k] = v
		}
	}
	return out
}
