package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/shap"
)

// Artifact kinds.
const (
	KindLinear   = "linear"
	KindXGBoost  = "xgboost_json"
	KindLightGBM = "lightgbm_text"
	KindSklearn  = "sklearn_json"
	// KindTree is a surrogate's regression tree, never uploaded.
	KindTree = "tree"
)

// Kinds lists every artifact kind.
var Kinds = []string{KindLinear, KindXGBoost, KindLightGBM, KindSklearn}

// Links of a linear model.
var Links = []string{"identity", "logit"}

// MaxContentBytes caps a tree ensemble's content (8 MiB); its features
// follow serving.CheckFeatures, as a serving endpoint's do.
const MaxContentBytes = 8 << 20

// An Artifact is a model's uploaded form, one per model, or a
// surrogate's fitted in memory (FittedTree).
type Artifact struct {
	OrgID   string
	ModelID string
	Kind    string
	// Features names the inputs in order (a tree model's may be empty
	// when its file names none).
	Features []string
	// Linear models only.
	Coefficients []float64
	Intercept    float64
	// Link turns the raw output into the prediction: identity or logit.
	Link string
	// Content is a tree ensemble's file as uploaded.
	Content     string
	NumFeatures int
	NumTrees    int
	MaxDepth    int
	UploadedAt  time.Time
	// ensemble is a surrogate tree's model (KindTree), which has no file.
	ensemble *forest.Ensemble
}

// FittedTree is the artifact of a regression tree fitted in memory (a
// surrogate's), which has no file: KindTree over features, identity link.
func FittedTree(features []string, tree *forest.Ensemble) Artifact {
	return Artifact{Kind: KindTree, Features: features, Link: "identity", NumFeatures: len(features),
		NumTrees: 1, MaxDepth: tree.MaxDepth(), ensemble: tree}
}

// Store keeps artifacts; the transactional store is one.
type Store interface {
	// PutModelArtifact stores a in place of the model's artifact;
	// store.ErrNotFound when the organization has no such model.
	PutModelArtifact(ctx context.Context, a Artifact) error
	// ModelArtifact returns the model's artifact; store.ErrNotFound when
	// there is none (or no such model in the organization).
	ModelArtifact(ctx context.Context, orgID, modelID string) (Artifact, error)
}

// artifactBody is the body of PUT /models/{model_id}/artifact.
type artifactBody struct {
	Kind         string          `json:"kind"`
	Features     []string        `json:"features"`
	Coefficients []float64       `json:"coefficients"`
	Intercept    *float64        `json:"intercept"`
	Link         string          `json:"link"`
	Content      json.RawMessage `json:"content"`
}

// parseArtifact validates a body into an Artifact (without ids and time):
// 422 naming the first field at fault.
func parseArtifact(b *artifactBody) (Artifact, error) {
	var v web.Problems
	v.Required("kind", b.Kind)
	v.OneOf("kind", b.Kind, Kinds...)
	if err := v.Err(); err != nil {
		return Artifact{}, err
	}
	a := Artifact{Kind: b.Kind, Features: b.Features}
	serving.CheckFeatures(&v, b.Features)
	if b.Kind == KindLinear {
		linearArtifact(&v, b, &a)
		return a, v.Err()
	}
	for field, set := range map[string]bool{"coefficients": b.Coefficients != nil, "intercept": b.Intercept != nil, "link": b.Link != ""} {
		if set {
			v.Add(field, "is for kind linear only: a tree model's link comes from its file")
		}
	}
	if err := v.Err(); err != nil {
		return a, err
	}
	content, err := contentOf(b.Kind, b.Content)
	if err != nil {
		return a, err
	}
	e, err := ParseEnsemble(b.Kind, []byte(content))
	if err != nil {
		return a, web.Invalid("content", strings.TrimPrefix(err.Error(), forest.ErrInvalid.Error()+": "))
	}
	if len(b.Features) > 0 && len(b.Features) != e.NumFeatures {
		return a, web.Invalid("features", fmt.Sprintf("names %d features; the model reads %d", len(b.Features), e.NumFeatures))
	}
	if len(a.Features) == 0 && len(e.Features) == e.NumFeatures {
		a.Features = e.Features
	}
	a.Content, a.Link, a.NumFeatures, a.NumTrees, a.MaxDepth = content, e.Link, e.NumFeatures, len(e.Trees), e.MaxDepth()
	return a, nil
}

// linearArtifact checks a linear model's fields into a.
func linearArtifact(v *web.Problems, b *artifactBody, a *Artifact) {
	if b.Content != nil {
		v.Add("content", "is for tree models only: a linear model is its features, coefficients and intercept")
	}
	if len(b.Features) == 0 {
		v.Add("features", "is required for kind linear")
	}
	switch {
	case len(b.Coefficients) == 0:
		v.Add("coefficients", "is required for kind linear")
	case len(b.Coefficients) != len(b.Features):
		v.Add("coefficients", fmt.Sprintf("has %d values; features names %d", len(b.Coefficients), len(b.Features)))
	}
	for _, c := range b.Coefficients {
		if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) > 1e300 {
			v.Add("coefficients", "must be finite numbers of magnitude at most 1e300")
		}
	}
	if b.Intercept == nil {
		v.Add("intercept", "is required for kind linear")
	} else if math.Abs(*b.Intercept) > 1e300 {
		v.Add("intercept", "must be a finite number of magnitude at most 1e300")
	}
	v.Required("link", b.Link)
	v.OneOf("link", b.Link, Links...)
	a.Coefficients, a.Link, a.NumFeatures = b.Coefficients, b.Link, len(b.Features)
	if b.Intercept != nil {
		a.Intercept = *b.Intercept
	}
}

// contentOf returns a tree model's file from content: a JSON string (any
// kind), or the model object itself for xgboost_json and sklearn_json.
func contentOf(kind string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", web.Invalid("content", "is required for kind "+kind)
	}
	var s string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", web.Invalid("content", "must be a string or a JSON object")
		}
	case '{':
		if kind == KindLightGBM {
			return "", web.Invalid("content", "must be the LightGBM text model as a string")
		}
		s = string(raw)
	default:
		return "", web.Invalid("content", "must be a string or a JSON object")
	}
	if len(s) > MaxContentBytes {
		return "", web.Invalid("content", fmt.Sprintf("must be at most %d bytes", MaxContentBytes))
	}
	var v web.Problems
	v.Text("content", s)
	return s, v.Err()
}

// ParseEnsemble reads a tree model's file of the given kind.
func ParseEnsemble(kind string, content []byte) (*forest.Ensemble, error) {
	switch kind {
	case KindXGBoost:
		return forest.ParseXGBoost(content)
	case KindLightGBM:
		return forest.ParseLightGBM(content)
	case KindSklearn:
		return forest.ParseSklearn(content)
	}
	return nil, fmt.Errorf("%w: kind %q is not a tree model", forest.ErrInvalid, kind)
}

// Linear returns a linear artifact as a model shap explains.
func (a *Artifact) Linear() (*shap.LinearModel, error) {
	if a.Kind != KindLinear {
		return nil, errors.New("not a linear artifact")
	}
	return &shap.LinearModel{Coefficients: a.Coefficients, Intercept: a.Intercept, Link: a.Link}, nil
}
