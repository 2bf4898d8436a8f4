package app

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/explanation"
)

// explanationWeights adapts the explanation store to the report's
// Sources.Explanations: the feature weights of a model's explanations
// completed in a period.
type explanationWeights struct {
	store interface {
		Explanations(ctx context.Context, orgID string, f explanation.Filter) ([]explanation.Explanation, int64, error)
	}
}

// ExplanationWeights reads the model's newest limit completed
// explanations and keeps the weights of those completed in [from, to).
func (e explanationWeights) ExplanationWeights(ctx context.Context, orgID, modelID string, from, to time.Time, limit int) ([]map[string]float64, error) {
	es, _, err := e.store.Explanations(ctx, orgID, explanation.Filter{ModelID: modelID, Status: explanation.StatusCompleted, Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("explanations of model %s: %w", modelID, err)
	}
	var out []map[string]float64
	for _, x := range es {
		if x.Outcome == nil || x.CompletedAt == nil || x.CompletedAt.Before(from) || !x.CompletedAt.Before(to) {
			continue
		}
		out = append(out, x.Outcome.FeatureWeights)
	}
	return out, nil
}
