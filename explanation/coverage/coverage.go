package coverage

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
)

// RatioWindow is the window of explained_predictions_ratio: the trailing
// seven days.
const RatioWindow = 7 * 24 * time.Hour

// Coverage is a model's explained_predictions_ratio, the trust score's
// explainability input: Explained over Logged, both counted over [From,
// To), capped at 1.
type Coverage struct {
	OrgID, ModelID string
	// Explained is how many distinct logged predictions of the model have
	// a completed explanation created in the window (auto or requested by
	// prediction_id), from the transactional store.
	Explained int64
	// Logged is how many predictions of the model the analytical rollups
	// hold in the window.
	Logged   int64
	Ratio    float64
	From, To time.Time
}

// Store keeps coverages; the transactional store is one.
type Store interface {
	// CoverageModels lists, as [org_id, model_id], the models of every
	// organization whose ratio is kept: auto_explain (and enabled) on, or
	// a coverage stored before.
	CoverageModels(ctx context.Context) ([][2]string, error)
	// ExplainedCounts counts, for each model of modelIDs in the
	// organization, the distinct logged predictions with a completed
	// explanation created in [from, to).
	ExplainedCounts(ctx context.Context, orgID string, modelIDs []string, from, to time.Time) (map[string]int64, error)
	// PutExplanationCoverage stores c as the model's coverage. When its
	// ratio differs from the stored one (or none was), it also takes the
	// model's trust snapshot, in the same transaction, and answers true.
	PutExplanationCoverage(ctx context.Context, c Coverage, at time.Time) (bool, error)
}

// LoggedCounts counts logged predictions; the analytical store's rollups
// are one, adapted in app.
type LoggedCounts interface {
	// LoggedCounts returns how many predictions each of the
	// organization's models with any has in [from, to).
	LoggedCounts(ctx context.Context, orgID string, modelIDs []string, from, to time.Time) (map[string]int64, error)
}

// Coverer keeps explained_predictions_ratio of the models CoverageModels
// names: for each organization, one read of the explained counts and one
// of the logged counts, then the coverage of each model stored (a trust
// snapshot when its ratio changed). The logged count is at least the
// explained one (the rollups may lag the explanations); a model with no
// logged prediction in the window keeps its last ratio.
type Coverer struct {
	Store  Store
	Logged LoggedCounts
	// Window defaults to RatioWindow.
	Window time.Duration
	Clock  clock.Clock
}

// Refresh recomputes every kept model's ratio; it answers how many
// changed.
func (c *Coverer) Refresh(ctx context.Context) (int, error) {
	models, err := c.Store.CoverageModels(ctx)
	if err != nil {
		return 0, err
	}
	byOrg := map[string][]string{}
	var orgs []string
	for _, m := range models {
		if _, ok := byOrg[m[0]]; !ok {
			orgs = append(orgs, m[0])
		}
		byOrg[m[0]] = append(byOrg[m[0]], m[1])
	}
	window := c.Window
	if window <= 0 {
		window = RatioWindow
	}
	now := c.Clock.Now()
	from := now.Add(-window)
	changed := 0
	for _, org := range orgs {
		ids := byOrg[org]
		explained, err := c.Store.ExplainedCounts(ctx, org, ids, from, now)
		if err != nil {
			return changed, fmt.Errorf("explained counts: %w", err)
		}
		logged, err := c.Logged.LoggedCounts(ctx, org, ids, from, now)
		if err != nil {
			return changed, fmt.Errorf("logged counts: %w", err)
		}
		for _, id := range ids {
			// An explained prediction is a logged one: while the rollups
			// lag the explanations, the logged count is at least theirs.
			cov := Coverage{OrgID: org, ModelID: id, Explained: explained[id], Logged: max(logged[id], explained[id]), From: from, To: now}
			if cov.Logged == 0 {
				continue
			}
			cov.Ratio = min(1, float64(cov.Explained)/float64(cov.Logged))
			ok, err := c.Store.PutExplanationCoverage(ctx, cov, now)
			if err != nil {
				return changed, err
			}
			if ok {
				changed++
			}
		}
	}
	return changed, nil
}
