package drift

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Drift types of a report: data drift compares a model's input features,
// prediction drift its outputs, concept drift a quality metric (from
// labelled predictions or logged metric values) with its baseline.
const (
	TypeData       = "data"
	TypePrediction = "prediction"
	TypeConcept    = "concept"
)

// Report is one scheduled detection run over a window of a model's logged
// predictions, compared with the model's reference.
type Report struct {
	ID      string `json:"id"`
	OrgID   string `json:"-"`
	ModelID string `json:"model_id"`
	// DriftType is TypeData (inputs), TypePrediction (outputs) or
	// TypeConcept (a quality metric).
	DriftType string `json:"drift_type"`
	// WindowStart and WindowEnd bound the predictions compared: those of
	// the hours starting in [WindowStart, WindowEnd).
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// Reference is what the window was compared with.
	Reference Reference `json:"reference"`
	// DriftDetected, OverallDriftScore and Severity are the result's.
	DriftDetected     bool     `json:"drift_detected"`
	OverallDriftScore float64  `json:"overall_drift_score"`
	Severity          Severity `json:"severity"`
	// Features holds the result of each tested feature (none in a
	// concept report).
	Features map[string]ReportFeature `json:"features"`
	// Concept is a concept report's comparison; nil on the other types.
	Concept *Concept `json:"concept,omitempty"`
	// Skipped lists the features the configuration leaves out; Problems
	// the features that could not be tested, with why.
	Skipped   []string          `json:"skipped_features"`
	Problems  map[string]string `json:"problems"`
	CreatedAt time.Time         `json:"created_at"`
}

// ReportFeature is one feature's result in a report.
type ReportFeature struct {
	FeatureResult
	// KSBound bounds how far the exact ks_test statistic can exceed the
	// one reported from the profiles' sketches; nil for other methods.
	KSBound *float64 `json:"ks_bound,omitempty"`
}

// DriftedFeatures lists the features whose drift was detected, sorted.
func (r Report) DriftedFeatures() []string {
	out := []string{}
	for name, f := range r.Features {
		if f.DriftDetected {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Summary is a sentence on what the report found, for governance events.
func (r Report) Summary() string {
	if c := r.Concept; c != nil {
		return fmt.Sprintf("concept drift at %s severity: %s %.4g (%s) against a baseline of %.4g (%s), %.1f%% worse",
			r.Severity, c.Metric, c.Current.Value, c.Current.Source, c.Baseline.Value, c.Baseline.Source, 100*c.Degradation)
	}
	return fmt.Sprintf("%s drift at %s severity on %s", r.DriftType, r.Severity, strings.Join(r.DriftedFeatures(), ", "))
}

// ReportFilter selects a model's reports. The zero values of the optional
// fields select everything.
type ReportFilter struct {
	OrgID, ModelID string
	// DriftType and Severity, when set, keep reports of that value.
	DriftType string
	Severity  Severity
	// From and To, when set, bound created_at: [From, To), as every
	// time window of the API.
	From, To *time.Time
	// Oldest orders oldest first; the default is newest first.
	Oldest bool
	// Limit bounds the reports returned (0: all); Offset skips some.
	Limit, Offset int
}

// Due is a model the scheduler considers: its organization and id, and
// when its newest report of each drift type was written (a type absent:
// never). Each type is scheduled on its own, so that a run which could
// write only some types (concept drift before the window holds enough
// predictions, say) does not hold the others back for an interval.
type Due struct {
	OrgID, ModelID string
	Last           map[string]time.Time
}

// ReportStore keeps drift reports in the transactional store.
type ReportStore interface {
	// CreateDriftReport stores r; store.ErrConflict when a report of the
	// same model, drift type and window end is stored already (another
	// processor replica's run); store.ErrNotFound when the organization
	// has no such model.
	CreateDriftReport(ctx context.Context, r Report) error
	// GovernancePending returns up to limit reports, of every
	// organization, that owe their governance event (those stored at high
	// severity and not marked sent), oldest first.
	GovernancePending(ctx context.Context, limit int) ([]Report, error)
	// GovernanceSent records that a report's governance event is on the
	// log.
	GovernanceSent(ctx context.Context, orgID, id string) error
	// DriftReport returns one report; store.ErrNotFound when the
	// organization has none of that id.
	DriftReport(ctx context.Context, orgID, id string) (Report, error)
	// DriftReports returns the reports f selects, in f's order, and how
	// many there are without Limit and Offset.
	DriftReports(ctx context.Context, f ReportFilter) ([]Report, int64, error)
	// DriftDue lists every model of every organization with the time of
	// its newest report of each drift type.
	DriftDue(ctx context.Context) ([]Due, error)
}
