package codehost

import (
	"context"
	"time"
)

// More delivery statuses: a received delivery is queued; processing
// moves it to processed, or to failed once MaxAttempts attempts failed.
const (
	DeliveryProcessed = "processed"
	DeliveryFailed    = "failed"
)

// Outcome is what processing a delivery found and did, kept with it.
type Outcome struct {
	// Ref is the branch, tag or release tag the event is about.
	Ref string `json:"ref"`
	// Version is what detected models are registered as: the tag, or the
	// commit's first 12 digits.
	Version string `json:"version"`
	// Skipped says why nothing was looked at (a branch not tracked, tags
	// not tracked, a release not published, ...); empty otherwise.
	Skipped string `json:"skipped"`
	// ConfigProblems are those of .monitor.yml; with any, no model is
	// registered and the files found are logged for review.
	ConfigProblems []string `json:"config_problems"`
	// Files are the changed (push) or present (tag, release) files that
	// match the repository's model path patterns.
	Files []string `json:"files"`
	// Registered are the model versions created (or found created by an
	// earlier attempt).
	Registered []Registered `json:"registered"`
	// Review are the model files logged for review instead, each with why.
	Review []Review `json:"review"`
}

// Registered is a model version created from a model file.
type Registered struct {
	Path    string `json:"path"`
	ModelID string `json:"model_id"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Review is a model file logged for review.
type Review struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// QueuedDelivery is a delivery with its place in the queue.
type QueuedDelivery struct {
	Delivery
	Attempts    int
	NextAttempt time.Time
	LastError   string
	Outcome     *Outcome
	ProcessedAt *time.Time
}

// Queue is the durable queue of received deliveries. A claim leases a
// delivery to one owner until the lease runs out; only the lease's owner
// may finish or retry it (store.ErrConflict otherwise: the lease was
// lost and another processor has it).
type Queue interface {
	// ClaimDeliveries leases up to limit received deliveries that are due
	// (next attempt reached, no live lease), oldest first, counting an
	// attempt on each.
	ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]QueuedDelivery, error)
	// FinishDelivery marks a leased delivery processed with its outcome
	// and adds to its repository's counters, in one transaction.
	FinishDelivery(ctx context.Context, owner string, d QueuedDelivery, o Outcome, commits, models int64, now time.Time) error
	// RetryDelivery releases a leased delivery whose processing failed:
	// due again at next, or failed for good when giveUp.
	RetryDelivery(ctx context.Context, owner string, d QueuedDelivery, cause string, next time.Time, giveUp bool) error
	// QueuedDeliveries returns a page of the repository's deliveries,
	// newest first, and how many it has.
	QueuedDeliveries(ctx context.Context, orgID, repositoryID string, offset, limit int) ([]QueuedDelivery, int64, error)
}
