package app

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/registry"
)

// healthStore is what a model's health is read from: the alerts and the
// drift reports in the transactional store.
type healthStore interface {
	ActiveAlertCounts(ctx context.Context, orgID string) (map[string]int64, error)
	NewestDriftReports(ctx context.Context, orgID string, from time.Time) ([]drift.Report, error)
}

// modelHealth fills the registry's active_alerts and drift_status.
type modelHealth struct{ store healthStore }

// ModelHealth implements registry.Healths: each model's alerts open or
// snoozed (the dashboard's active ones) and its newest drift report.
func (h modelHealth) ModelHealth(ctx context.Context, orgID string, ids []string) (map[string]registry.Health, error) {
	counts, err := h.store.ActiveAlertCounts(ctx, orgID)
	if err != nil {
		return nil, err
	}
	newest, err := h.store.NewestDriftReports(ctx, orgID, time.Unix(0, 0))
	if err != nil {
		return nil, err
	}
	out := make(map[string]registry.Health, len(ids))
	for _, id := range ids {
		out[id] = registry.Health{ActiveAlerts: counts[id]}
	}
	for _, r := range newest {
		h, asked := out[r.ModelID]
		if !asked {
			continue
		}
		h.Drift = &registry.DriftStatus{DriftDetected: r.DriftDetected, Severity: string(r.Severity), DriftType: r.DriftType,
			ReportID: r.ID, ReportedAt: r.CreatedAt.UTC()}
		out[r.ModelID] = h
	}
	return out, nil
}
