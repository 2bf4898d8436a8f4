package explanation

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// MaxBackground bounds the background rows of one request.
const MaxBackground = 200

// plan is a checked request: the rows and the algorithm that explains
// them; source says where the background came from ("" when there is
// none) and used holds a fallback's rows as read (the cache's key).
type plan struct {
	row        []float64
	background [][]float64
	algorithm  string
	source     string
	used       []map[string]any
}

// planFor checks req against the model's artifact for method: 422 naming
// instance.NAME, background[i].NAME, background or method. shap needs no
// background for a tree model (path-dependent TreeSHAP; with one it is
// interventional) and needs one for a linear model (its mean);
// kernel_shap and lime always need one: without the request's, the first
// of fallbacks that has rows.
func planFor(art *artifact.Artifact, req Request, method string, fallbacks []fallback) (plan, error) {
	return planning(art, req, method, fallbacks, false)
}

// planning is planFor; with interventional, TreeSHAP also takes the
// background of the first of fallbacks when req sends none (a tree
// surrogate's: its training rows at the latest).
func planning(art *artifact.Artifact, req Request, method string, fallbacks []fallback, interventional bool) (plan, error) {
	p := plan{algorithm: algorithmOf(method)}
	if method == RequestSHAP {
		p.algorithm = artifact.MethodTreeSHAP
		if art.Kind == artifact.KindLinear {
			p.algorithm = artifact.MethodLinearSHAP
		}
	}
	var usable func([]float64) bool
	if p.algorithm == artifact.MethodLIME {
		usable = full
	}
	err := p.read(req, art.Features, func(instance map[string]any, field string) ([]float64, error) {
		row, err := art.Instance(instance)
		return row, renamed(err, "instance", field)
	}, interventional || p.algorithm != artifact.MethodTreeSHAP, usable, fallbacks)
	if err != nil {
		return p, err
	}
	if p.algorithm == artifact.MethodLIME {
		if err := complete(art, p.row, "instance"); err != nil {
			return p, err
		}
		for i, r := range p.background {
			if err := complete(art, r, fmt.Sprintf("background[%d]", i)); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// complete answers 422 naming field.NAME for a missing value of row:
// LIME samples around numbers.
func complete(art *artifact.Artifact, row []float64, field string) error {
	var v web.Problems
	for i, x := range row {
		if math.IsNaN(x) {
			v.Add(field+"."+art.FeatureName(i), "is required for method lime: it samples around numbers")
		}
	}
	return v.Err()
}

// algorithmOf is the algorithm a model-agnostic request method runs
// (shap_kernel and its alias: kernel_shap); shap is resolved by the model.
func algorithmOf(method string) string {
	if CanonicalMethod(method) == RequestKernelSHAP {
		return artifact.MethodKernelSHAP
	}
	return method
}

// seed is the sampling seed of an explanation stored before requests
// carried one: its id's hash, so that a job run again gives the same
// values.
func seed(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Execute computes e with the model's current artifact, or through
// access when it has none; an artifact's outcome is kept in c when e's
// request asks for it. report, when set, is passed the computation's
// Progress (a served model's work then split into whole batches).
func Execute(ctx context.Context, artifacts artifact.Store, access *Access, c kvcache.Cache, e Explanation, report func(artifact.Progress)) (*Outcome, error) {
	var rep *artifact.Reporter
	if report != nil {
		rep = &artifact.Reporter{Report: report}
	}
	return execute(ctx, artifacts, access, c, e, rep)
}

// execute is Execute reporting to rep.
func execute(ctx context.Context, artifacts artifact.Store, access *Access, c kvcache.Cache, e Explanation, rep *artifact.Reporter) (*Outcome, error) {
	art, err := artifacts.ModelArtifact(ctx, e.OrgID, e.ModelID)
	if errors.Is(err, store.ErrNotFound) {
		return access.execute(ctx, e, rep)
	}
	if err != nil {
		return nil, err
	}
	p, err := planFor(&art, e.Request, e.Method, access.fallbacks(ctx, e.OrgID, e.ModelID))
	if err != nil {
		return nil, fmt.Errorf("the request no longer fits the model's artifact: %w", err)
	}
	o, err := explain(&art, p, e, rep)
	if err == nil {
		// A cache that cannot keep it costs a recomputation, nothing more.
		_ = keep(ctx, c, p.cacheKey(&art, e.Request, e.Method), e.Request.CacheTTLHours, o)
	}
	return o, err
}

// ExplainWithArtifact computes e with art alone: no background rows but
// the request's, no progress reported, no cache (the auto-explainer's
// computation). The error says why it failed: the request no longer
// fits the artifact (a 422's fields within), or the computation failed.
func ExplainWithArtifact(art *artifact.Artifact, e Explanation) (*Outcome, error) {
	p, err := planFor(art, e.Request, e.Method, nil)
	if err != nil {
		return nil, fmt.Errorf("the request no longer fits the model's artifact: %w", err)
	}
	return explain(art, p, e, nil)
}

// explain computes e, planned as p, with the artifact art, reporting to
// rep.
func explain(art *artifact.Artifact, p plan, e Explanation, rep *artifact.Reporter) (*Outcome, error) {
	began := time.Now()
	res, err := art.ComputeReporting(p.row, p.algorithm, p.background, sampling(e), rep)
	if err != nil {
		return nil, reason(err)
	}
	o, err := newOutcome(res, began)
	if err != nil {
		return nil, err
	}
	o.ModelAccess = AccessArtifact
	o.background(p)
	return o, nil
}

// newOutcome is res as stored, computed since began; an error when a
// figure is not a finite number.
func newOutcome(res artifact.Result, began time.Time) (*Outcome, error) {
	if !finite(res) {
		return nil, errors.New("the values overflow: the instance or background holds numbers too large for the model")
	}
	o := &Outcome{Algorithm: res.Method, Exactness: res.Approximation, Perturbation: res.Perturbation,
		BaseValue: res.BaseValue, PredictedValue: res.Output, OutputSpace: res.OutputSpace,
		FeatureWeights: make(map[string]float64, len(res.FeatureWeights)), Ranking: make([]string, 0, len(res.FeatureWeights)),
		ComputationTimeMS: float64(time.Since(began).Microseconds()) / 1000}
	for _, w := range res.FeatureWeights {
		o.FeatureWeights[w.Feature] = w.Weight
		o.Ranking = append(o.Ranking, w.Feature)
	}
	return o, nil
}

// background states where p's background rows came from and how many
// there were.
func (o *Outcome) background(p plan) {
	o.BackgroundSource, o.BackgroundRows = p.source, len(p.background)
}

// renamed moves a 422's details from fields under from to fields under to.
func renamed(err error, from, to string) error {
	var v *web.Error
	if !errors.As(err, &v) {
		return err
	}
	d := make(map[string]any, len(v.Details))
	for k, x := range v.Details {
		if k == from || strings.HasPrefix(k, from+".") {
			k = to + strings.TrimPrefix(k, from)
		}
		d[k] = x
	}
	out := *v
	out.Details = d
	return &out
}
