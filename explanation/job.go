package explanation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/web"
)

// Statuses of an explanation job.
const (
	StatusPending   = "pending"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	// StatusCancelled: cancelled while pending (POST
	// /explanations/{explanation_id}/cancel); a computation in flight
	// then finishes but its outcome is dropped.
	StatusCancelled = "cancelled"
)

// Statuses lists every status of an explanation.
var Statuses = []string{StatusPending, StatusCompleted, StatusFailed, StatusCancelled}

// Origins of an explanation: asked for through the API, or made by
// explanation/autoexplain from a logged prediction.
const (
	OriginRequest = "request"
	OriginAuto    = "auto"
)

// Methods a request names: shap is the exact method the model's artifact
// allows (TreeSHAP for a tree ensemble, linear SHAP for a linear model);
// shap_kernel (spec 3's name) and lime are model-agnostic.
const (
	RequestSHAP       = "shap"
	RequestKernelSHAP = "shap_kernel"
	RequestLIME       = artifact.MethodLIME
	// AliasKernelSHAP is shap_kernel's earlier name, still accepted
	// wherever a method is named and read as shap_kernel.
	AliasKernelSHAP = "kernel_shap"
)

// RequestMethods lists the methods a request may name (and
// AliasKernelSHAP).
var RequestMethods = []string{RequestSHAP, RequestKernelSHAP, RequestLIME}

// CanonicalMethod is method with the alias kernel_shap read as
// shap_kernel.
func CanonicalMethod(method string) string {
	if method == AliasKernelSHAP {
		return RequestKernelSHAP
	}
	return method
}

// checkMethod adds a problem on field when method (already canonical)
// is not one of RequestMethods; "" is accepted (the model's default).
func checkMethod(v *web.Problems, field, method string) {
	if method != "" {
		v.OneOf(field, method, RequestMethods...)
	}
}

// An Explanation is one requested explanation and, once computed, its
// outcome.
type Explanation struct {
	ID      string
	OrgID   string
	ModelID string
	// PredictionID is the logged prediction explained; "" when the
	// request sent an instance.
	PredictionID string
	// Method is the name requested (RequestMethods).
	Method  string
	Status  string
	Request Request
	// Progress is how far the computation is while pending.
	Progress artifact.Progress
	// Outcome is set when Status is completed; Error when failed.
	Outcome     *Outcome
	Error       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// Request is what an explanation explains: the instance and the
// background rows, as sent (feature name to number or null).
type Request struct {
	Instance   map[string]any   `json:"instance"`
	Background []map[string]any `json:"background,omitempty"`
	// CacheTTLHours, when positive, keeps the computed outcome in the
	// cache for that long (use_cache with the model's cache_enabled).
	CacheTTLHours int `json:"cache_ttl_hours,omitempty"`
	// Seed seeds the sampled methods (Kernel SHAP's coalitions, LIME's
	// perturbation rows) and NumSamples is their sample size; nil and 0
	// in requests stored before they existed (the explanation's id's
	// hash and the defaults then).
	Seed       *uint64 `json:"seed,omitempty"`
	NumSamples int     `json:"num_samples,omitempty"`
	// NumFeatures is how many features the result lists (top_features);
	// BackgroundSamples, when positive, caps the background rows taken.
	NumFeatures       int `json:"num_features,omitempty"`
	BackgroundSamples int `json:"background_samples,omitempty"`
}

// Outcome is a computed explanation as stored.
type Outcome struct {
	// Algorithm is tree_shap, linear_shap, kernel_shap or lime.
	Algorithm string `json:"algorithm"`
	// Exactness is exact or approximate.
	Exactness string `json:"exactness"`
	// Perturbation is TreeSHAP's: tree_path_dependent or interventional.
	Perturbation   string             `json:"perturbation,omitempty"`
	BaseValue      float64            `json:"base_value"`
	PredictedValue float64            `json:"predicted_value"`
	OutputSpace    string             `json:"output_space"`
	FeatureWeights map[string]float64 `json:"feature_weights"`
	// Ranking names the features by decreasing |weight|.
	Ranking           []string `json:"ranking"`
	ComputationTimeMS float64  `json:"computation_time_ms"`
	// Cached says the outcome was taken from the cache (its computation
	// time is the original's).
	Cached bool `json:"cached,omitempty"`
	// ModelAccess is artifact, served or surrogate ("" in outcomes
	// stored before it existed: artifact); ModelRequests counts a served
	// model's requests; Fidelity and Surrogate are a surrogate's (nil
	// Surrogate in outcomes stored before it existed: linear).
	ModelAccess   string           `json:"model_access,omitempty"`
	ModelRequests int              `json:"model_requests,omitempty"`
	Fidelity      *Fidelity        `json:"fidelity,omitempty"`
	Surrogate     *SurrogateChoice `json:"surrogate,omitempty"`
	// BackgroundSource is where the background rows came from
	// (BackgroundRequest, BackgroundDriftReference, BackgroundLogged; ""
	// for path-dependent TreeSHAP, which takes none) and BackgroundRows
	// how many there were.
	BackgroundSource string `json:"background_source,omitempty"`
	BackgroundRows   int    `json:"background_rows,omitempty"`
}

// Filter selects explanations of a list.
type Filter struct {
	ModelID, PredictionID, Method, Status string
	Offset, Limit                         int
}

// Stats summarises one model's explanations.
type Stats struct {
	Total    int64
	ByMethod map[string]int64
	ByStatus map[string]int64
	// MeanComputationMS is nil when no explanation has completed.
	MeanComputationMS *float64
}

// Predictions reads logged predictions; the analytical store is one,
// adapted in app.
type Predictions interface {
	// PredictionInput returns the input_data of one model's logged
	// prediction; store.ErrNotFound when the organization's model has
	// none with that id.
	PredictionInput(ctx context.Context, orgID, modelID, predictionID string) (json.RawMessage, error)
}

// Store keeps explanations; the transactional store is one.
type Store interface {
	// CreateExplanation stores e; store.ErrNotFound when the
	// organization has no such model.
	CreateExplanation(ctx context.Context, e Explanation) error
	// Explanation returns one explanation of the organization;
	// store.ErrNotFound when there is none.
	Explanation(ctx context.Context, orgID, id string) (Explanation, error)
	// Explanations lists the organization's explanations, newest first,
	// and how many match f.
	Explanations(ctx context.Context, orgID string, f Filter) ([]Explanation, int64, error)
	// FinishExplanation stores a pending explanation's outcome (status,
	// outcome or error, times); store.ErrConflict when it is no longer
	// pending, store.ErrNotFound when it is gone.
	FinishExplanation(ctx context.Context, e Explanation) error
	// ExplanationStats counts one model's explanations of the
	// organization by method and by status and averages the computation
	// time of the completed ones.
	ExplanationStats(ctx context.Context, orgID, modelID string) (Stats, error)
	// ExplanationProgress stores the progress of a pending explanation
	// of the organization; nothing when it is no longer pending or gone.
	ExplanationProgress(ctx context.Context, orgID, id string, p artifact.Progress) error
	// CancelExplanation cancels a pending explanation of the
	// organization at at; store.ErrConflict when it is no longer
	// pending, store.ErrNotFound when there is none.
	CancelExplanation(ctx context.Context, orgID, id string, at time.Time) error
	// PendingExplanations returns up to limit pending explanations of
	// every organization, oldest first.
	PendingExplanations(ctx context.Context, limit int) ([]Explanation, error)
}
