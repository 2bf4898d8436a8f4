package trust

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/registry"
)

// Causes of a snapshot: what changed an input.
const (
	// CauseDriftReport: a drift report was stored (CauseID is its id).
	CauseDriftReport = "drift_report"
	// CauseBiasAudit: a bias audit completed (CauseID is its id).
	CauseBiasAudit = "bias_audit"
	// CauseBiasAuditDeleted: a completed bias audit was deleted (CauseID
	// is its id).
	CauseBiasAuditDeleted = "bias_audit_deleted"
	// CauseConfig: the organization's weights changed (CauseID names
	// the change).
	CauseConfig = "config"
	// CauseExplanations: the model's explained_predictions_ratio changed
	// (CauseID is the Unix microseconds of the change).
	CauseExplanations = "explained_ratio"
)

// Config is an organization's weights.
type Config struct {
	Weights Weights
	// IsDefault is true while no override is on file.
	IsDefault bool
	// UpdatedAt is the override's time, nil for the defaults.
	UpdatedAt *time.Time
}

// Snapshot is a model's trust score as computed when an input changed.
//
// The store takes a snapshot in the transaction that stores a drift
// report, completes a bias audit, deletes a completed one, changes a
// model's explained ratio or changes the weights (then of every
// model of the organization with an input), never on a read; one per
// cause, numbered per model, so a replayed write cannot take a second one.
// A model whose inputs predate the trust score gets its first snapshot at
// its next input change or weight change.
//
// trend_direction compares the newest scored snapshot of the history with
// the oldest: improving when the score rose by TrendThreshold (2 points)
// or more, declining when it fell by as much, stable otherwise, null with
// fewer than two scored snapshots.
type Snapshot struct {
	OrgID, ModelID string
	// Seq numbers the model's snapshots from 1, in the order they were
	// taken.
	Seq int64
	At  time.Time
	// CauseType and CauseID say which input change took it.
	CauseType, CauseID string
	Result
}

// Latest is a model with its newest snapshot (Seq 0 when it has none).
type Latest struct {
	Model    registry.Model
	Snapshot Snapshot
}

// Store keeps the weights and the snapshots. The store takes the
// snapshots itself, in the transaction that stores a drift report,
// completes a bias audit or changes the weights, so that an input change
// and its snapshot are written together or not at all.
type Store interface {
	registry.Finder
	// TrustConfig returns the organization's weights in force.
	TrustConfig(ctx context.Context, orgID string) (Config, error)
	// PutTrustConfig stores the organization's weights and, in the same
	// transaction, snapshots every model of the organization that has an
	// input, with cause CauseConfig and id changeID, at at.
	PutTrustConfig(ctx context.Context, orgID string, w Weights, changeID string, at time.Time) error
	// TrustLatest returns the model's newest snapshot; Seq 0 when it has
	// none (store.ErrNotFound is the caller's model check's).
	TrustLatest(ctx context.Context, orgID, modelID string) (Snapshot, error)
	// TrustPortfolio returns every model of the organization with its
	// newest snapshot, by model name and version.
	TrustPortfolio(ctx context.Context, orgID string) ([]Latest, error)
	// TrustHistory returns the model's snapshots taken at or after from,
	// the newest limit of them, oldest first.
	TrustHistory(ctx context.Context, orgID, modelID string, from time.Time, limit int) ([]Snapshot, error)
}
