package bias

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/registry"
)

// Status is where an audit is in its life: pending (accepted, queued),
// running, then completed, failed or cancelled.
type Status string

// The statuses of an audit.
const (
	StatusPending   Status = "pending"
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// Statuses lists every status, in lifecycle order.
var Statuses = []Status{StatusPending, StatusRunning, StatusCompleted, StatusFailed, StatusCancelled}

// Done reports whether the audit has finished, well or not: a finished
// audit never changes again.
func (s Status) Done() bool { return s == StatusCompleted || s == StatusFailed || s == StatusCancelled }

// The two request forms.
const (
	// FormPredictions audits the model's logged predictions.
	FormPredictions = "logged_predictions"
	// FormLabels audits arrays the caller supplies.
	FormLabels = "label_supplied"
)

// Summary is what an audit was asked to do, as stored and answered: the
// request without its data arrays.
type Summary struct {
	// Form is FormPredictions or FormLabels.
	Form string `json:"form"`
	// Attributes are the protected attributes audited.
	Attributes []string `json:"protected_attributes"`
	// Metrics are the metrics asked for (all four when none were named).
	Metrics []string `json:"metrics"`
	// Threshold is the request's threshold, nil when absent (0.8 applies).
	Threshold *float64 `json:"threshold"`
	// Reference maps an attribute to its reference group.
	Reference map[string]string `json:"reference_group"`
	// Favourable is the declared favourable label, nil for 1/true.
	Favourable any `json:"favourable_label"`
	// PredictionField and LabelFields locate values in logged predictions
	// (empty for the label-supplied form).
	PredictionField string   `json:"prediction_field,omitempty"`
	LabelFields     []string `json:"label_fields,omitempty"`
	// Start and End bound the logged predictions read (nil: unbounded).
	Start *time.Time `json:"start_date,omitempty"`
	End   *time.Time `json:"end_date,omitempty"`
	// Rows is the number of rows audited: supplied (label-supplied form)
	// or read (logged predictions, once the audit has run).
	Rows int64 `json:"rows"`
	// Skipped counts logged predictions left out for holding no prediction.
	Skipped int64 `json:"skipped_predictions"`
}

// Audit is one fairness audit, stored in its model's organization.
type Audit struct {
	ID      string
	OrgID   string
	ModelID string
	Status  Status
	Request Summary
	// Result is the outcome of a completed audit, nil before.
	Result *Result
	// Error says why a failed audit failed, or who cancelled a cancelled
	// one ("" otherwise).
	Error string
	// GovernancePending is set, in the write that completes an audit at
	// high or critical severity, until its governance event is on the log.
	GovernancePending bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// CompletedAt is when the audit finished (completed, failed or
	// cancelled).
	CompletedAt *time.Time
}

// Filter selects audits of one organization for a list, newest first.
type Filter struct {
	// ModelID and Status, when set, keep the matching audits.
	ModelID string
	Status  Status
	// Limit and Offset page the list; Limit 0 means no limit.
	Limit, Offset int
}

// Store keeps audits. Every method but the Runner's (the heartbeat, the
// stale sweep, the owed governance events) takes the caller's
// organization; another
// organization's audit or model is store.ErrNotFound like a missing one.
type Store interface {
	// Model returns the model; store.ErrNotFound when the organization
	// has no such model.
	Model(ctx context.Context, orgID, id string) (registry.Model, error)
	// CreateBiasAudit stores a new audit; store.ErrNotFound when the
	// organization has no such model.
	CreateBiasAudit(ctx context.Context, a Audit) error
	// BiasAudit returns one audit.
	BiasAudit(ctx context.Context, orgID, id string) (Audit, error)
	// BiasAudits returns one page of audits matching f, newest first, and
	// how many match in all.
	BiasAudits(ctx context.Context, orgID string, f Filter) ([]Audit, int64, error)
	// UpdateBiasAudit stores a's status, request summary, result, error,
	// governance flag, updated and completed times, provided the stored
	// audit has not finished: store.ErrConflict when it has (completed,
	// failed or cancelled), store.ErrNotFound when the audit is gone
	// (deleted, or its model was).
	UpdateBiasAudit(ctx context.Context, a Audit) error
	// DeleteBiasAudit deletes an audit, at at; store.ErrConflict while
	// it owes its governance event (GovernancePending).
	DeleteBiasAudit(ctx context.Context, orgID, id string, at time.Time) error
	// BiasGovernancePending returns up to limit audits, of every
	// organization, that owe their governance event, oldest first.
	BiasGovernancePending(ctx context.Context, limit int) ([]Audit, error)
	// BiasGovernanceSent records that an audit's governance event is on
	// the log.
	BiasGovernanceSent(ctx context.Context, orgID, id string) error
	// TouchBiasAudits sets updated_at of the listed unfinished audits to
	// at: the heartbeat of the process that runs them.
	TouchBiasAudits(ctx context.Context, ids []string, at time.Time) error
	// FailStaleBiasAudits marks failed, with reason, every pending or
	// running audit of any organization not updated since before, and
	// returns how many it marked.
	FailStaleBiasAudits(ctx context.Context, before, at time.Time, reason string) (int64, error)
}
