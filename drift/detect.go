package drift

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
)

// DefaultMaxValues is the most array elements (missing ones included) one
// detection request may carry when Detector.MaxValues is 0: enough for a
// million reference and a hundred thousand current values of 50 features.
// The server's body limit (10 MiB unless configured) usually binds first.
const DefaultMaxValues = 60_000_000

// Detector runs drift detection. The zero value works: GOMAXPROCS
// workers, DefaultMaxValues and the system clock.
type Detector struct {
	// Workers bounds the features computed at once; 0 means GOMAXPROCS.
	Workers int
	// MaxValues bounds the array elements of one request; 0 means
	// DefaultMaxValues. More answers 413.
	MaxValues int
	// Clock stamps results.
	Clock clock.Clock
}

// Result is the detection result of POST /drift/detect.
type Result struct {
	ModelID string `json:"model_id"`
	// DriftDetected is true when at least one feature drifted.
	DriftDetected bool `json:"drift_detected"`
	// OverallDriftScore is the share of the tested features that drifted,
	// in [0, 1].
	OverallDriftScore float64 `json:"overall_drift_score"`
	// Severity is the highest severity among the features (low when none
	// drifted).
	Severity Severity `json:"severity"`
	// Features holds one result per tested feature.
	Features map[string]FeatureResult `json:"features"`
	// Skipped lists the features left out by the model's feature_configs
	// (enabled false), sorted.
	Skipped   []string  `json:"skipped_features"`
	Timestamp time.Time `json:"timestamp"`
	// ReportID is the drift report the result is stored as; "" when the
	// request said record false.
	ReportID string `json:"report_id,omitempty"`

	transient bool // the request's record false
}

// FeatureResult is the outcome for one feature.
type FeatureResult struct {
	DriftDetected bool `json:"drift_detected"`
	// DriftScore is D (ks_test), Cramér's V (chi_squared), the PSI
	// (psi) or the Jensen-Shannon distance (js_divergence).
	DriftScore float64 `json:"drift_score"`
	// PValue is the test's p-value; nil for psi and js_divergence.
	PValue *float64 `json:"p_value"`
	Method Method   `json:"method"`
	// Severity grades a detected drift by DriftScore; low when not detected.
	Severity Severity `json:"severity"`
	// Threshold is the threshold applied: a significance level for tests,
	// a score cutoff otherwise.
	Threshold float64 `json:"threshold"`
	// Statistic is the test's raw statistic: D, χ², the PSI or the JS
	// distance.
	Statistic float64 `json:"statistic"`
	// Type is the feature's type, and TypeSource where it came from:
	// "inferred" from the values or "feature_config".
	Type       FeatureType `json:"feature_type"`
	TypeSource string      `json:"feature_type_source"`
	// MethodSource says where Method came from: "request" (config.method),
	// "feature_config" or "default" (chosen by type).
	MethodSource string `json:"method_source"`
	// SampleSize counts the values tested, Missing the values left out.
	SampleSize Sides `json:"sample_size"`
	Missing    Sides `json:"missing"`
}

// Sides is a count for the reference and the current data.
type Sides struct {
	Reference int `json:"reference"`
	Current   int `json:"current"`
}

// Detect reads every feature's arrays and tests them, features in
// parallel, with cfg (the model's configuration, or Default) filling in
// what the request leaves open. Problems with the values answer 422
// naming each feature's array (reference_data.age); too many values 413.
//
// ParseRequest checks a body's shape and locates each feature's two JSON
// arrays without reading them; Detector.Detect then reads the arrays
// (numbers straight into []float64, strings and booleans into
// per-category counts, never through []any) and tests the features,
// GOMAXPROCS at a time.
//
// A feature holding numbers is numeric; one holding strings or booleans is
// categorical. null, "" and NaN (as Python's json module writes it) are
// missing values: left out and counted per side. The method is, in order:
// the request's config.method, the feature's FeatureConfig.Method, else
// KS for numeric and ChiSquared for categorical features. The threshold is
// the request's config.threshold, the feature's FeatureConfig.Threshold,
// else the model's Thresholds for the method (the medium preset when the
// model has no configuration).
//
//	method         drift_score                      p_value  drift when
//	ks_test        KS statistic D, [0, 1]           yes      p_value < threshold
//	chi_squared    Cramér's V = sqrt(χ²/N), [0, 1]  yes      p_value < threshold
//	psi            PSI (natural log), >= 0          null     drift_score >= threshold
//	js_divergence  JS distance (base 2), [0, 1]     null     drift_score >= threshold
//
// Numeric features under chi_squared, psi or js_divergence are cut into ten
// bins at the reference's deciles (stattest.Numeric.Bin). A detected drift
// is graded by its score with Thresholds.Severity (Cutoffs.Grade); an
// undetected one is low. The overall drift score is the share of tested
// features that drifted; the result drifts when any feature did, and its
// severity is the highest.
func (d Detector) Detect(ctx context.Context, req Request, cfg Config) (Result, error) {
	jobs, skipped := plan(req, cfg)
	results := make([]FeatureResult, len(jobs))
	errs := make([]map[string]*fieldError, len(jobs))
	var next, values atomic.Int64
	var over atomic.Bool
	limit := int64(d.MaxValues)
	if limit <= 0 {
		limit = DefaultMaxValues
	}
	workers := d.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil || over.Load() {
					return
				}
				results[i], errs[i] = jobs[i].run(func(n int) bool {
					if values.Add(int64(n)) > limit {
						over.Store(true)
					}
					return !over.Load()
				})
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("drift detection: %w", err)
	}
	if over.Load() {
		return Result{}, &web.Error{Status: http.StatusRequestEntityTooLarge, Code: web.CodePayloadTooLarge,
			Message: fmt.Sprintf("got more than %d values in reference_data and current_data, want at most %d", limit, limit),
			Details: map[string]any{"max_values": limit}}
	}
	if err := problems(jobs, errs); err != nil {
		return Result{}, err
	}
	return d.assemble(req.ModelID, jobs, results, skipped), nil
}

// assemble puts the features' results together: drift when any feature
// drifted, the share of drifted features as the overall score and the
// highest severity.
func (d Detector) assemble(modelID string, jobs []job, results []FeatureResult, skipped []string) Result {
	r := Result{ModelID: modelID, Severity: Low, Features: make(map[string]FeatureResult, len(jobs)),
		Skipped: skipped, Timestamp: d.Clock.Now()}
	drifted := 0
	for i, j := range jobs {
		f := results[i]
		r.Features[j.feature.Name] = f
		if f.DriftDetected {
			drifted++
		}
		if f.Severity.rank() > r.Severity.rank() {
			r.Severity = f.Severity
		}
	}
	r.DriftDetected = drifted > 0
	if len(jobs) > 0 {
		r.OverallDriftScore = float64(drifted) / float64(len(jobs))
	}
	return r
}
