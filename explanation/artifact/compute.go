package artifact

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/lime"
	"github.com/vigilhq/vigil/stats/shap"
)

// Methods of an explanation.
const (
	MethodTreeSHAP   = "tree_shap"
	MethodLinearSHAP = "linear_shap"
	MethodKernelSHAP = "kernel_shap"
	MethodLIME       = "lime"
)

// Approximations an explanation states.
const (
	Exact       = "exact"
	Approximate = "approximate"
)

// DefaultNumSamples is a sampled method's sample size when Sampling names
// none.
const DefaultNumSamples = 5000

// Sampling is how a sampled method samples: its seed and sample size
// (Kernel SHAP's coalitions, LIME's perturbation rows; 0 takes
// DefaultNumSamples).
type Sampling struct {
	Seed    uint64
	Samples int
}

// Size is s's sample size, DefaultNumSamples when unset.
func (s Sampling) Size() int {
	if s.Samples <= 0 {
		return DefaultNumSamples
	}
	return s.Samples
}

// A Result is one computed explanation of an artifact's model.
type Result struct {
	Method string
	// Approximation is exact (TreeSHAP, linear SHAP, Kernel SHAP over
	// every coalition) or approximate (sampled Kernel SHAP, LIME).
	Approximation string
	// Perturbation is, for TreeSHAP, tree_path_dependent or interventional.
	Perturbation string
	// BaseValue plus the sum of FeatureWeights is Output (for LIME, the
	// surrogate's intercept and weights, with LocalPrediction).
	BaseValue      float64
	Output         float64
	FeatureWeights []FeatureWeight
	// OutputSpace is margin (log-odds for a logit link) or value.
	OutputSpace string
}

// A FeatureWeight is one feature's contribution.
type FeatureWeight struct {
	Feature string
	Value   float64 // the instance's value
	Weight  float64
}

// Instance turns a JSON instance (feature name to number or null) into
// the row the artifact's model reads, in its feature order: 422 naming
// instance.NAME for an unknown feature or a value that is not a number;
// a feature left out or null is missing (NaN), which tree models route by
// their default direction and a linear model refuses.
func (a *Artifact) Instance(instance map[string]any) ([]float64, error) {
	if len(a.Features) != a.NumFeatures {
		return nil, web.Invalid("instance", "the model's artifact names no features: upload it again with features")
	}
	index := make(map[string]int, len(a.Features))
	for i, f := range a.Features {
		index[f] = i
	}
	row := make([]float64, a.NumFeatures)
	for i := range row {
		row[i] = math.NaN()
	}
	var v web.Problems
	for name, raw := range instance {
		i, ok := index[name]
		if !ok {
			v.Add("instance."+name, "is not a feature of the model")
			continue
		}
		switch x := raw.(type) {
		case nil:
		case float64:
			row[i] = x
		default:
			v.Add("instance."+name, "must be a number or null")
		}
	}
	if a.Kind == KindLinear {
		for i, x := range row {
			if math.IsNaN(x) {
				v.Add("instance."+a.Features[i], "is required: a linear model has no missing values")
			}
		}
	}
	return row, v.Err()
}

// Compute explains row x with method. TreeSHAP is for tree artifacts:
// path-dependent without background rows, interventional with them.
// linear_shap, kernel_shap and lime need background rows (the linear
// model's mean, the absent features' values, LIME's sampling scale);
// the sampled ones (Kernel SHAP beyond 11 varying features, LIME) sample
// as s says.
func (a *Artifact) Compute(x []float64, method string, background [][]float64, s Sampling) (Result, error) {
	return a.ComputeReporting(x, method, background, s, nil)
}

// ComputeReporting is Compute reporting its progress to rep (nil: none).
func (a *Artifact) ComputeReporting(x []float64, method string, background [][]float64, s Sampling, rep *Reporter) (Result, error) {
	var e *forest.Ensemble
	var lin *shap.LinearModel
	switch {
	case a.ensemble != nil:
		e = a.ensemble
	case a.Kind == KindLinear:
		lin, _ = a.Linear()
	default:
		var err error
		if e, err = a.parsedEnsemble(); err != nil {
			return Result{}, fmt.Errorf("stored artifact of model %s: %w", a.ModelID, err)
		}
	}
	model := func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		if e != nil {
			e.RawRows(rows, out)
			return out, nil
		}
		for i, r := range rows {
			out[i] = lin.Margin(r)
		}
		return out, nil
	}
	res := Result{Method: method, Approximation: Exact, OutputSpace: "value"}
	if a.Link == "logit" {
		res.OutputSpace = "margin"
	}
	var r shap.Result
	var err error
	switch {
	case method == MethodTreeSHAP && e != nil && len(background) == 0:
		res.Perturbation = "tree_path_dependent"
		r, err = shap.Tree(e, x)
	case method == MethodTreeSHAP && e != nil:
		res.Perturbation = "interventional"
		r, err = shap.TreeInterventional(e, x, background)
	case method == MethodLinearSHAP && lin != nil:
		var mean []float64
		if mean, err = shap.Mean(background, len(x)); err == nil {
			r, err = shap.Linear(lin, mean, x)
		}
	case method == MethodKernelSHAP:
		var k shap.KernelResult
		opt := rep.kernel(shap.KernelOptions{Seed: s.Seed, Samples: s.Size()})
		if e != nil { // the same numbers as the hybrid rows, one walk per tree and coalition
			k, err = shap.KernelTree(e, x, background, opt)
		} else {
			k, err = shap.Kernel(model, x, background, opt)
		}
		r = k.Result
		if !k.Exact {
			res.Approximation = Approximate
		}
	case method == MethodLIME:
		return a.lime(res, x, background, model, s, rep)
	default:
		return Result{}, web.Invalid("method", fmt.Sprintf("%s does not apply to a %s artifact", method, a.Kind))
	}
	if err != nil {
		return Result{}, invalidInput(err)
	}
	res.BaseValue, res.Output = r.Base, r.Output
	for i, w := range r.Values {
		res.FeatureWeights = append(res.FeatureWeights, FeatureWeight{Feature: a.FeatureName(i), Value: x[i], Weight: w})
	}
	sortWeights(res.FeatureWeights)
	return res, nil
}

// lime fits LIME around x with the background's column means and
// standard deviations (lime's continuous sampling, s's rows and seed;
// the kernel's width 0.75·√features), on a sample shared by the
// explanations of an uploaded file with the same sampling (limeDraw).
func (a *Artifact) lime(res Result, x []float64, background [][]float64, model shap.Model, s Sampling, rep *Reporter) (Result, error) {
	res.Approximation = Approximate
	mean, scale, err := limeScale(background, len(x))
	if err != nil {
		return Result{}, invalidInput(err)
	}
	d, err := a.limeDraw(mean, scale, model, s, rep)
	if err != nil {
		return Result{}, err
	}
	scaled, err := lime.WithInstance(d.scaled, x, mean, scale)
	if err != nil {
		return Result{}, invalidInput(err)
	}
	out, err := model([][]float64{x})
	if err != nil {
		return Result{}, err
	}
	labels := slices.Clone(d.labels)
	labels[0] = out[0]
	ex, err := lime.Explain(lime.Input{Scaled: scaled, Labels: labels, Selection: "none"})
	if err != nil {
		return Result{}, invalidInput(err)
	}
	res.BaseValue, res.Output = ex.Intercept, out[0]
	for _, w := range ex.Weights {
		res.FeatureWeights = append(res.FeatureWeights, FeatureWeight{Feature: a.FeatureName(w.Feature), Value: x[w.Feature], Weight: w.Weight})
	}
	return res, nil
}

// FeatureName returns feature i's name, or f<i> when the artifact names none.
func (a *Artifact) FeatureName(i int) string {
	if i < len(a.Features) {
		return a.Features[i]
	}
	return fmt.Sprintf("f%d", i)
}

// Agnostic explains x with Kernel SHAP or LIME through model, whose
// features are named by features.
func Agnostic(features []string, x []float64, method string, background [][]float64, model shap.Model, s Sampling, rep *Reporter) (Result, error) {
	named := &Artifact{Features: features, NumFeatures: len(features)}
	res := Result{Method: method, Approximation: Exact, OutputSpace: "value"}
	if method == MethodLIME {
		return named.lime(res, x, background, model, s, rep)
	}
	k, err := shap.Kernel(model, x, background, rep.kernel(shap.KernelOptions{Seed: s.Seed, Samples: s.Size()}))
	if err != nil {
		return Result{}, invalidInput(err)
	}
	if !k.Exact {
		res.Approximation = Approximate
	}
	res.BaseValue, res.Output = k.Base, k.Output
	for i, w := range k.Values {
		res.FeatureWeights = append(res.FeatureWeights, FeatureWeight{Feature: features[i], Value: x[i], Weight: w})
	}
	sortWeights(res.FeatureWeights)
	return res, nil
}

// sortWeights orders weights by decreasing |weight|, then by name.
func sortWeights(ws []FeatureWeight) {
	sort.SliceStable(ws, func(i, j int) bool {
		x, y := math.Abs(ws[i].Weight), math.Abs(ws[j].Weight)
		if x != y {
			return x > y
		}
		return ws[i].Feature < ws[j].Feature
	})
}

// invalidInput turns the maths' ErrInvalid into a 422 on background.
func invalidInput(err error) error {
	if errors.Is(err, shap.ErrInvalid) || errors.Is(err, lime.ErrInvalid) {
		return web.Invalid("background", err.Error())
	}
	return err
}
