package dashboard

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// MaxModels bounds the models one dashboard reads.
const MaxModels = 10000

// Store is what the figures read from the transactional store.
type Store interface {
	Models(ctx context.Context, orgID string, f registry.Filter) ([]registry.Model, error)
	// NewestDriftReports is each model's newest drift report since from,
	// in one read.
	NewestDriftReports(ctx context.Context, orgID string, from time.Time) ([]drift.Report, error)
	alerts.Statistics
	AlertInstances(ctx context.Context, orgID string, f alerts.InstanceFilter) ([]alerts.Instance, int64, error)
}

// Predictions is what the figures read from the analytical store.
type Predictions interface {
	Activity(ctx context.Context, orgID string, modelIDs []string) (map[string]analytics.Activity, error)
	PredictionCounts(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]int64, error)
}

// API serves the dashboard's figures.
type API struct {
	Store       Store
	Predictions Predictions
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Tokens authenticates the live channel's token.
	Tokens Tokens
	// Interval is how often the live channel pushes; zero: DefaultInterval.
	Interval time.Duration

	once   sync.Once
	base   context.Context // ends the live channels when Run's context ends
	cancel context.CancelFunc
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/dashboard/statistics", Permission: "dashboard:read", Handler: a.statistics},
		{Method: fiber.MethodGet, Path: "/executive-dashboard/risk-register", Permission: "dashboard:read", Handler: a.heatMap},
		a.LiveRoutes()[0],
	}
}

// LiveRoutes is the live channel alone, which the server also mounts at
// its root: spec 3 places it at /dashboard/ws, outside /api/v1. It
// authenticates its own token (a query parameter, as browsers cannot set
// headers on a WebSocket), so the guard treats it as public: limited per
// client address.
func (a *API) LiveRoutes() []web.Route {
	return []web.Route{{Method: fiber.MethodGet, Path: "/dashboard/ws", Public: true, Handler: a.live}}
}

// Statistics are the dashboard's figures.
type Statistics struct {
	Models struct {
		Total    int `json:"total"`
		Active   int `json:"active"`
		Inactive int `json:"inactive"`
	} `json:"models"`
	Predictions struct {
		Total     int64   `json:"total"`
		Today     int64   `json:"today"`
		AvgPerDay float64 `json:"avg_per_day"`
	} `json:"predictions"`
	Alerts struct {
		Active       int64 `json:"active"`
		Acknowledged int64 `json:"acknowledged"`
		Resolved     int64 `json:"resolved"`
	} `json:"alerts"`
	Drift struct {
		ModelsWithDrift int `json:"models_with_drift"`
		HighSeverity    int `json:"high_severity"`
	} `json:"drift"`
	GeneratedAt time.Time `json:"generated_at"`
}

// statistics answers GET /dashboard/statistics.
func (a *API) statistics(c *fiber.Ctx) error {
	st, err := a.figures(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return c.JSON(st)
}

// figures computes the organization's dashboard figures as of now.
func (a *API) figures(ctx context.Context, orgID string) (Statistics, error) {
	now := a.Clock.Now().UTC()
	var st Statistics
	st.GeneratedAt = now
	models, err := a.Store.Models(ctx, orgID, registry.Filter{Limit: MaxModels})
	if err != nil {
		return st, err
	}
	ids := make([]string, 0, len(models))
	oldest := now
	for _, m := range models {
		ids = append(ids, m.ID)
		st.Models.Total++
		if m.Status == registry.StatusActive {
			st.Models.Active++
		} else {
			st.Models.Inactive++
		}
		oldest = minTime(oldest, m.CreatedAt)
	}
	if err := a.predictions(ctx, orgID, ids, now, oldest, &st); err != nil {
		return st, err
	}
	groups, err := a.Store.AlertStatistics(ctx, orgID, "", time.Unix(0, 0), now.Add(time.Hour))
	if err != nil {
		return st, err
	}
	for _, g := range groups {
		switch g.Status {
		case alerts.StatusOpen, alerts.StatusSnoozed:
			st.Alerts.Active += g.Count
		case alerts.StatusAcknowledged:
			st.Alerts.Acknowledged += g.Count
		case alerts.StatusResolved:
			st.Alerts.Resolved += g.Count
		}
	}
	newest, err := a.Store.NewestDriftReports(ctx, orgID, now.Add(-7*24*time.Hour))
	if err != nil {
		return st, err
	}
	listed := make(map[string]bool, len(ids))
	for _, id := range ids {
		listed[id] = true
	}
	for _, r := range newest {
		if listed[r.ModelID] && r.DriftDetected {
			st.Drift.ModelsWithDrift++
			if r.Severity == drift.High {
				st.Drift.HighSeverity++
			}
		}
	}
	return st, nil
}

// predictions fills the prediction figures.
func (a *API) predictions(ctx context.Context, orgID string, ids []string, now, oldest time.Time, st *Statistics) error {
	if len(ids) == 0 {
		return nil
	}
	act, err := a.Predictions.Activity(ctx, orgID, ids)
	if err != nil {
		return err
	}
	today := analytics.Range{From: now.Truncate(24 * time.Hour), To: now.Add(time.Minute)}
	var active []string
	for id, ac := range act {
		st.Predictions.Total += ac.Predictions
		if ac.Last != nil && !ac.Last.Before(today.From) {
			active = append(active, id)
		}
	}
	counts, err := a.Predictions.PredictionCounts(ctx, orgID, active, today)
	if err != nil {
		return err
	}
	for _, n := range counts {
		st.Predictions.Today += n
	}
	days := max(1, int(now.Sub(oldest)/(24*time.Hour)))
	st.Predictions.AvgPerDay = float64(st.Predictions.Total) / float64(days)
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
