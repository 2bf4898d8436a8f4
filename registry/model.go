// Package registry is the model registry: models and their versions, their
// status, baselines and monitoring settings. It serves /models.
//
// It imports identity, the platform and the store errors; it must not
// import the event log, the analytical store, an engine or another API
// package.
package registry

import (
	"context"
	"time"
)

// ModelTypes are the model types the spec names: spec 3's four, and
// spec 2's neural_network (its .monitor.yml example).
var ModelTypes = []string{"classification", "regression", "clustering", "llm", "neural_network"}

// Statuses of a model, lower case in responses; list filters take them in
// upper case.
const (
	StatusActive     = "active"
	StatusInactive   = "inactive"
	StatusDeprecated = "deprecated"
	StatusArchived   = "archived"
)

// Statuses lists every status.
var Statuses = []string{StatusActive, StatusInactive, StatusDeprecated, StatusArchived}

// Model is a registered model version. Versions of one model share Name.
type Model struct {
	ID                 string             `json:"id"`
	OrgID              string             `json:"-"`
	Name               string             `json:"name"`
	Version            string             `json:"version"`
	Description        string             `json:"description"`
	ModelType          string             `json:"model_type"`
	Framework          string             `json:"framework"`
	Status             string             `json:"status"`
	OwnerID            string             `json:"owner_id"`
	TargetVariable     string             `json:"target_variable"`
	Metadata           map[string]any     `json:"metadata"`
	BaselineMetrics    map[string]float64 `json:"baseline_metrics"`
	MonitoringConfig   map[string]any     `json:"monitoring_config"`
	MonitoringEnabled  bool               `json:"monitoring_enabled"`
	Features           []string           `json:"features"`
	FairnessAttributes []string           `json:"fairness_attributes"`
	ProtectedGroups    map[string]any     `json:"protected_groups"`
	Tags               []string           `json:"tags"`
	PredictionCount    int64              `json:"prediction_count"`
	LastPredictionAt   *time.Time         `json:"last_prediction_at"`
	// ActiveAlerts and DriftStatus are what the alerts and drift concerns
	// track of the model (spec 3: "also tracked automatically"), filled
	// when it is read: its alerts open or snoozed, and its newest drift
	// report in brief (nil before any).
	ActiveAlerts int64        `json:"active_alerts"`
	DriftStatus  *DriftStatus `json:"drift_status"`
	// StatusBeforeArchive is the status restore returns to.
	StatusBeforeArchive string     `json:"-"`
	ArchivedAt          *time.Time `json:"archived_at"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
}

// Filter narrows a model list. Zero fields do not filter.
type Filter struct {
	Status    string
	ModelType string
	OwnerID   string
	// Tags: a model must carry every one of them.
	Tags []string
	// Search matches name or description, case-insensitively.
	Search string
	Offset int
	Limit  int
}

// Activity is what a model's predictions add up to.
type Activity struct {
	Predictions int64
	Last        *time.Time
}

// DriftStatus is a model's newest drift report in brief.
type DriftStatus struct {
	DriftDetected bool      `json:"drift_detected"`
	Severity      string    `json:"severity"`
	DriftType     string    `json:"drift_type"`
	ReportID      string    `json:"report_id"`
	ReportedAt    time.Time `json:"reported_at"`
}

// Health is what other concerns track of a model.
type Health struct {
	ActiveAlerts int64
	Drift        *DriftStatus
}

// Healths reads the models' health from the alerts and the drift reports.
type Healths interface {
	ModelHealth(ctx context.Context, orgID string, modelIDs []string) (map[string]Health, error)
}

// Activities reads models' activity from the analytical store, where the
// predictions are: the registry keeps no copy that could drift.
type Activities interface {
	Activities(ctx context.Context, orgID string, modelIDs []string) (map[string]Activity, error)
}

// Store keeps models. Every method takes the caller's organization; another
// organization's model reports store.ErrNotFound like a missing one.
type Store interface {
	// CreateModel stores m; store.ErrConflict when the organization has
	// this name and version already.
	CreateModel(ctx context.Context, m Model) error
	Model(ctx context.Context, orgID, id string) (Model, error)
	Models(ctx context.Context, orgID string, f Filter) ([]Model, error)
	// ModelVersions returns the versions named name, newest first.
	ModelVersions(ctx context.Context, orgID, name string) ([]Model, error)
	// UpdateModel applies change to the model inside one transaction and
	// returns the stored result; an error from change aborts it.
	UpdateModel(ctx context.Context, orgID, id string, change func(*Model) error) (Model, error)
	// DeleteModel removes the model and what hangs on it, permanently.
	DeleteModel(ctx context.Context, orgID, id string) error
}
