package trust

import (
	"context"
	"math"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// Permissions of the trust score: viewers read, admins configure the
// weights.
const (
	PermRead      = "trust:read"
	PermConfigure = "trust:configure"
)

// MaxHistoryPoints bounds a history's data_points: the newest ones.
const MaxHistoryPoints = 1000

// API serves /trust-score.
type API struct {
	Store Store
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/trust-score/config", Permission: PermRead, Handler: a.getConfig},
		{Method: fiber.MethodPut, Path: "/trust-score/config", Permission: PermConfigure, Handler: a.putConfig},
		{Method: fiber.MethodGet, Path: "/trust-score/portfolio", Permission: PermRead, Handler: a.portfolio},
		{Method: fiber.MethodGet, Path: "/trust-score/models/:model_id", Permission: PermRead, Handler: a.model},
		{Method: fiber.MethodGet, Path: "/trust-score/models/:model_id/history", Permission: PermRead, Handler: a.history},
	}
}

// configView is the weight configuration as answered.
type configView struct {
	Fairness       float64    `json:"fairness_weight"`
	Drift          float64    `json:"drift_weight"`
	Explainability float64    `json:"explainability_weight"`
	IsDefault      bool       `json:"is_default"`
	UpdatedAt      *time.Time `json:"updated_at"`
}

func viewConfig(c Config) configView {
	return configView{Fairness: c.Weights.Fairness, Drift: c.Weights.Drift, Explainability: c.Weights.Explainability,
		IsDefault: c.IsDefault, UpdatedAt: c.UpdatedAt}
}

func (a *API) getConfig(c *fiber.Ctx) error {
	cfg, err := a.Store.TrustConfig(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return c.JSON(viewConfig(cfg))
}

// configRequest is the body of PUT /trust-score/config: the weights sent
// replace those in force, the others keep their value.
type configRequest struct {
	Fairness       *float64 `json:"fairness_weight"`
	Drift          *float64 `json:"drift_weight"`
	Explainability *float64 `json:"explainability_weight"`
}

// apply returns w with the weights sent, or a 422 naming the field: each
// weight is a number in [0, 1] and at least one of the result is
// positive.
func (r configRequest) apply(w Weights) (Weights, error) {
	var v web.Problems
	set := func(field string, src *float64, dst *float64) {
		if src == nil {
			return
		}
		if math.IsNaN(*src) || *src < 0 || *src > 1 {
			v.Add(field, "must be a number from 0 to 1")
			return
		}
		*dst = *src
	}
	set("fairness_weight", r.Fairness, &w.Fairness)
	set("drift_weight", r.Drift, &w.Drift)
	set("explainability_weight", r.Explainability, &w.Explainability)
	if err := v.Err(); err != nil {
		return w, err
	}
	if w.Fairness+w.Drift+w.Explainability <= 0 {
		field := "fairness_weight"
		switch {
		case r.Fairness != nil:
		case r.Drift != nil:
			field = "drift_weight"
		case r.Explainability != nil:
			field = "explainability_weight"
		}
		v.Add(field, "at least one weight must be positive")
	}
	return w, v.Err()
}

// putConfig overrides the weights sent and snapshots the organization's
// models under the new weights.
func (a *API) putConfig(c *fiber.Ctx) error {
	var req configRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	org := identity.OrgID(c)
	cfg, err := a.Store.TrustConfig(c.UserContext(), org)
	if err != nil {
		return err
	}
	w, err := req.apply(cfg.Weights)
	if err != nil {
		return err
	}
	if err := a.Store.PutTrustConfig(c.UserContext(), org, w, uuid.NewString(), a.Clock.Now()); err != nil {
		return err
	}
	cfg, err = a.Store.TrustConfig(c.UserContext(), org)
	if err != nil {
		return err
	}
	return c.JSON(viewConfig(cfg))
}

// record is spec 1's trust score record.
type record struct {
	ModelID      string   `json:"model_id"`
	ModelName    string   `json:"model_name"`
	ModelVersion string   `json:"model_version"`
	TrustScore   *float64 `json:"trust_score"`
	Components
	InputsAvailable   Available  `json:"inputs_available"`
	LastBiasAuditAt   *time.Time `json:"last_bias_audit_at"`
	LastDriftReportAt *time.Time `json:"last_drift_report_at"`
	ExplainedRatio    *float64   `json:"explained_predictions_ratio"`
	Weights           Weights    `json:"weights"`
	// SnapshotAt is the time of the snapshot answered, nil before the
	// model's first one.
	SnapshotAt      *time.Time `json:"snapshot_at"`
	MethodologyNote string     `json:"methodology_note"`
}

func (a *API) scoped(c *fiber.Ctx) (context.Context, string, registry.Model, error) {
	ctx, org := c.UserContext(), identity.OrgID(c)
	m, err := registry.Find(ctx, a.Store, org, c.Params("model_id"))
	return ctx, org, m, err
}

// model answers GET /trust-score/models/{model_id}: the newest snapshot.
func (a *API) model(c *fiber.Ctx) error {
	ctx, org, m, err := a.scoped(c)
	if err != nil {
		return err
	}
	cfg, err := a.Store.TrustConfig(ctx, org)
	if err != nil {
		return err
	}
	s, err := a.Store.TrustLatest(ctx, org, m.ID)
	if err != nil {
		return err
	}
	r := record{ModelID: m.ID, ModelName: m.Name, ModelVersion: m.Version, TrustScore: s.Score, Components: s.Components,
		InputsAvailable: s.Available, LastBiasAuditAt: s.LastBiasAuditAt, LastDriftReportAt: s.LastDriftReportAt,
		ExplainedRatio: s.ExplainedRatio, Weights: s.Weights, MethodologyNote: Note(cfg.Weights)}
	if s.Seq > 0 {
		r.SnapshotAt = &s.At
	}
	return c.JSON(r)
}

// portfolioModel is one model of the rollup.
type portfolioModel struct {
	ModelID      string     `json:"model_id"`
	ModelName    string     `json:"model_name"`
	ModelVersion string     `json:"model_version"`
	TrustScore   *float64   `json:"trust_score"`
	SnapshotAt   *time.Time `json:"snapshot_at"`
}

// portfolio answers GET /trust-score/portfolio: every model's newest
// score and their mean over the models that have one.
func (a *API) portfolio(c *fiber.Ctx) error {
	ctx, org := c.UserContext(), identity.OrgID(c)
	cfg, err := a.Store.TrustConfig(ctx, org)
	if err != nil {
		return err
	}
	all, err := a.Store.TrustPortfolio(ctx, org)
	if err != nil {
		return err
	}
	models := make([]portfolioModel, len(all))
	var sum float64
	scored := 0
	for i, l := range all {
		models[i] = portfolioModel{ModelID: l.Model.ID, ModelName: l.Model.Name, ModelVersion: l.Model.Version, TrustScore: l.Snapshot.Score}
		if l.Snapshot.Seq > 0 {
			models[i].SnapshotAt = &l.Snapshot.At
		}
		if l.Snapshot.Score != nil {
			sum += *l.Snapshot.Score
			scored++
		}
	}
	var avg *float64
	if scored > 0 {
		avg = ptr(math.Round(100*sum/float64(scored)) / 100)
	}
	return c.JSON(fiber.Map{"org_average_trust_score": avg, "models": models,
		"models_with_insufficient_data": len(all) - scored, "methodology_note": Note(cfg.Weights)})
}

// point is one snapshot of a history.
type point struct {
	SnapshotAt time.Time `json:"snapshot_at"`
	TrustScore *float64  `json:"trust_score"`
	Components
	InputsAvailable Available `json:"inputs_available"`
	Weights         Weights   `json:"weights"`
	CauseType       string    `json:"cause_type"`
	CauseID         string    `json:"cause_id"`
}

// history answers GET /trust-score/models/{model_id}/history: the
// snapshots of the last days days (default 30, 1-365), oldest first, and
// their trend.
func (a *API) history(c *fiber.Ctx) error {
	days, err := web.IntQuery(c, "days", 30, 1, 365)
	if err != nil {
		return err
	}
	ctx, org, m, err := a.scoped(c)
	if err != nil {
		return err
	}
	snaps, err := a.Store.TrustHistory(ctx, org, m.ID, a.Clock.Now().AddDate(0, 0, -days), MaxHistoryPoints)
	if err != nil {
		return err
	}
	points := make([]point, len(snaps))
	for i, s := range snaps {
		points[i] = point{SnapshotAt: s.At, TrustScore: s.Score, Components: s.Components, InputsAvailable: s.Available,
			Weights: s.Weights, CauseType: s.CauseType, CauseID: s.CauseID}
	}
	return c.JSON(fiber.Map{"model_id": m.ID, "model_name": m.Name, "model_version": m.Version, "days": days,
		"trend_direction": Trend(snaps), "data_points": points})
}
