package view

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// API serves the views of completed explanations: comparisons, plot data
// and a model's global importance.
type API struct {
	Models registry.Finder
	Jobs   explanation.Store
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/explanations/compare", Permission: "models:read", Handler: a.compare},
		{Method: fiber.MethodPost, Path: "/explanations/visualization", Permission: "models:read", Handler: a.visualizeMany},
		{Method: fiber.MethodGet, Path: "/explanations/importance/:model_id", Permission: "models:read", Handler: a.globalImportance},
		{Method: fiber.MethodGet, Path: "/explanations/:explanation_id/visualization", Permission: "models:read", Handler: a.visualize},
	}
}

// Comparison types of POST /explanations/compare.
var ComparisonTypes = []string{"feature_importance", "instance_similarity", "method_agreement"}

// Bounds of the requests over several explanations.
const (
	MinCompare, MaxCompare = 2, 20
	MaxMultiPlot           = 100
	// MaxImportance bounds the completed explanations global importance
	// reads: the model's newest.
	MaxImportance = 10000
)

// shapAlgorithms are the algorithms whose weights are SHAP values (LIME's
// are a surrogate's coefficients, not summed into global importance).
var shapAlgorithms = map[string]bool{artifact.MethodTreeSHAP: true, artifact.MethodLinearSHAP: true, artifact.MethodKernelSHAP: true}

// completedSet reads the explanations ids of the organization: 422 on
// explanation_ids unless there are lo to hi of them or when they explain
// more than one model, 404 for one the organization does not have, 422
// naming explanation_ids[i] for one not completed.
func (a *API) completedSet(ctx context.Context, orgID string, ids []string, lo, hi int) ([]explanation.Explanation, error) {
	if len(ids) < lo || len(ids) > hi {
		return nil, web.Invalid("explanation_ids", fmt.Sprintf("must hold %d to %d explanation ids", lo, hi))
	}
	out := make([]explanation.Explanation, 0, len(ids))
	for i, id := range ids {
		e, err := explanation.Find(ctx, a.Jobs, orgID, id)
		if err != nil {
			return nil, err
		}
		if e.Status != explanation.StatusCompleted || e.Outcome == nil {
			return nil, web.Invalid(fmt.Sprintf("explanation_ids[%d]", i), "is "+e.Status+": only completed explanations have weights")
		}
		if len(out) > 0 && e.ModelID != out[0].ModelID {
			return nil, web.Invalid("explanation_ids", "must all explain one model")
		}
		out = append(out, e)
	}
	return out, nil
}

// compareBody is the body of POST /explanations/compare.
type compareBody struct {
	ExplanationIDs []string `json:"explanation_ids"`
	ComparisonType string   `json:"comparison_type"`
}

// comparedFeature is one feature of a feature_importance comparison.
type comparedFeature struct {
	Feature string `json:"feature"`
	// Weights and Ranks (1: the largest |weight|) follow explanation_ids;
	// a weight is 0 and a rank null where an explanation names none.
	Weights []float64 `json:"weights"`
	Ranks   []*int    `json:"ranks"`
	MeanAbs float64   `json:"mean_abs_weight"`
}

// comparedPair is one pair of explanations of a similarity or agreement
// comparison.
type comparedPair struct {
	A string `json:"explanation_a"`
	B string `json:"explanation_b"`
	// instance_similarity.
	Distance *float64 `json:"instance_distance,omitempty"`
	Cosine   *float64 `json:"attribution_cosine,omitempty"`
	// method_agreement.
	*Agreement
}

// comparison is POST /explanations/compare's answer.
type comparison struct {
	ComparisonType string            `json:"comparison_type"`
	ExplanationIDs []string          `json:"explanation_ids"`
	ModelID        string            `json:"model_id"`
	Features       []comparedFeature `json:"features,omitempty"`
	Pairs          []comparedPair    `json:"pairs,omitempty"`
}

// compare answers POST /explanations/compare: 2 to 20 completed
// explanations of one model compared by comparison_type.
func (a *API) compare(c *fiber.Ctx) error {
	var b compareBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	var v web.Problems
	v.Required("comparison_type", b.ComparisonType)
	v.OneOf("comparison_type", b.ComparisonType, ComparisonTypes...)
	if err := v.Err(); err != nil {
		return err
	}
	es, err := a.completedSet(c.UserContext(), identity.OrgID(c), b.ExplanationIDs, MinCompare, MaxCompare)
	if err != nil {
		return err
	}
	out := comparison{ComparisonType: b.ComparisonType, ExplanationIDs: b.ExplanationIDs, ModelID: es[0].ModelID}
	ws := make([]map[string]float64, len(es))
	for i, e := range es {
		ws[i] = e.Outcome.FeatureWeights
	}
	switch b.ComparisonType {
	case "feature_importance":
		rank := make([]map[string]int, len(es))
		for i, w := range ws {
			rank[i] = map[string]int{}
			for r, f := range topFeatures(w, len(w)) {
				rank[i][f] = r + 1
			}
		}
		for _, imp := range GlobalImportance(ws) {
			f := comparedFeature{Feature: imp.Feature, MeanAbs: imp.MeanAbs}
			for i, w := range ws {
				f.Weights = append(f.Weights, w[imp.Feature])
				var r *int
				if n, ok := rank[i][imp.Feature]; ok {
					r = &n
				}
				f.Ranks = append(f.Ranks, r)
			}
			out.Features = append(out.Features, f)
		}
	default:
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				p := comparedPair{A: es[i].ID, B: es[j].ID}
				if b.ComparisonType == "instance_similarity" {
					fs := union(ws[i], ws[j])
					p.Distance, p.Cosine = Distance(es[i].Request.Instance, es[j].Request.Instance), Cosine(vector(ws[i], fs), vector(ws[j], fs))
				} else {
					g := Agree(ws[i], ws[j])
					p.Agreement = &g
				}
				out.Pairs = append(out.Pairs, p)
			}
		}
	}
	return c.JSON(out)
}

// visualize answers GET /explanations/{explanation_id}/visualization:
// plot_type (PlotTypes) over max_features (1-100, default 10).
func (a *API) visualize(c *fiber.Ctx) error {
	// The explanation first: another organization's is a 404 whatever
	// the query.
	id, err := web.PathParam(c, "explanation_id")
	if err != nil {
		return err
	}
	e, err := explanation.Find(c.UserContext(), a.Jobs, identity.OrgID(c), id)
	if err != nil {
		return err
	}
	max, err := web.IntQuery(c, "max_features", 10, 1, 100)
	if err != nil {
		return err
	}
	var v web.Problems
	plot := v.EnumQuery(c, "plot_type", "", PlotTypes...)
	v.Required("plot_type", plot)
	if err := v.Err(); err != nil {
		return err
	}
	if e.Status != explanation.StatusCompleted || e.Outcome == nil {
		return web.Conflict("the explanation is " + e.Status + ": only a completed one has weights to plot")
	}
	out := PlotOf(e, plot, max)
	return c.JSON(struct {
		ExplanationID string `json:"explanation_id"`
		Plot
	}{e.ID, out})
}

// multiPlotBody is the body of POST /explanations/visualization.
type multiPlotBody struct {
	ExplanationIDs []string `json:"explanation_ids"`
	PlotType       string   `json:"plot_type"`
	MaxFeatures    *web.Int `json:"max_features"`
	Feature        string   `json:"feature"`
}

// visualizeMany answers POST /explanations/visualization: 1 to 100
// completed explanations of one model as plot_type (MultiPlotTypes) over
// max_features (1-100, default 20).
func (a *API) visualizeMany(c *fiber.Ctx) error {
	var b multiPlotBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	var v web.Problems
	v.Required("plot_type", b.PlotType)
	v.OneOf("plot_type", b.PlotType, MultiPlotTypes...)
	max := 20
	if b.MaxFeatures != nil {
		max = int(*b.MaxFeatures)
		if max < 1 || max > 100 {
			v.Add("max_features", "must be 1 to 100")
		}
	}
	v.Text("feature", b.Feature)
	if err := v.Err(); err != nil {
		return err
	}
	es, err := a.completedSet(c.UserContext(), identity.OrgID(c), b.ExplanationIDs, 1, MaxMultiPlot)
	if err != nil {
		return err
	}
	out := MultiPlotOf(es, b.PlotType, max, b.Feature)
	if b.PlotType == "dependence" && len(out.Features) == 0 {
		return web.Invalid("feature", "is not a feature of these explanations")
	}
	return c.JSON(struct {
		ModelID        string   `json:"model_id"`
		ExplanationIDs []string `json:"explanation_ids"`
		MultiPlot
	}{es[0].ModelID, b.ExplanationIDs, out})
}

// globalImportance answers GET /explanations/importance/{model_id}: the
// model's features by mean |weight| over its newest completed
// explanations (at most MaxImportance) of the method the query names:
// shap (default) every SHAP explanation (tree, linear or Kernel SHAP),
// shap_kernel those requested as shap_kernel, lime LIME's.
func (a *API) globalImportance(c *fiber.Ctx) error {
	var v web.Problems
	method := explanation.CanonicalMethod(v.EnumQuery(c, "method", explanation.RequestSHAP, slices.Concat(explanation.RequestMethods, []string{explanation.AliasKernelSHAP})...))
	if err := v.Err(); err != nil {
		return err
	}
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	f := explanation.Filter{ModelID: modelID, Status: explanation.StatusCompleted, Limit: 500}
	if method != explanation.RequestSHAP {
		f.Method = method
	}
	var ws []map[string]float64
	for ; f.Offset < MaxImportance; f.Offset += f.Limit {
		page, _, err := a.Jobs.Explanations(ctx, orgID, f)
		if err != nil {
			return err
		}
		for _, e := range page {
			if e.Outcome != nil && shapAlgorithms[e.Outcome.Algorithm] == (method != explanation.RequestLIME) && len(ws) < MaxImportance {
				ws = append(ws, e.Outcome.FeatureWeights)
			}
		}
		if len(page) < f.Limit {
			break
		}
	}
	features := GlobalImportance(ws)
	if features == nil {
		features = []Importance{}
	}
	importance := make(map[string]float64, len(features))
	for _, x := range features {
		importance[x.Feature] = x.MeanAbs
	}
	return c.JSON(importanceView{ModelID: modelID, Method: method, FeatureImportance: importance,
		CalculatedAt: a.Clock.Now().UTC(), Explanations: len(ws), Features: features})
}

// importanceView is a model's global feature importance: spec 3's
// model_id, method, feature_importance (feature to mean |weight|) and
// calculated_at, with how many explanations it was computed over and
// each feature's detail, ranked.
type importanceView struct {
	ModelID           string             `json:"model_id"`
	Method            string             `json:"method"`
	FeatureImportance map[string]float64 `json:"feature_importance"`
	CalculatedAt      time.Time          `json:"calculated_at"`
	Explanations      int                `json:"explanations"`
	Features          []Importance       `json:"features"`
}
