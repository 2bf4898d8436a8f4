package app

import (
	"context"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// explanationAccess is the serving endpoints' API and the access to
// models without an artifact: their endpoints, called through the
// outbound guard with headers sealed by box, else surrogates fitted on
// the analytical store's logged predictions; background rows of requests
// that send none from the drift reference's sample in the transactional
// store, else from logged predictions.
func (a *App) explanationAccess(box *secretbox.Keyring) (*serving.API, *explanation.Access, error) {
	guard, err := a.outboundGuard()
	if err != nil {
		return nil, nil, err
	}
	return &serving.API{Models: a.store, Servings: a.store, Guard: guard, Box: box, Clock: a.clock()},
		&explanation.Access{Servings: a.store, Guard: guard, Box: box, Logged: loggedPredictions{a.analytics},
			References: a.store}, nil
}

// loggedPredictions adapts the analytical store to explanation.PredictionLog.
type loggedPredictions struct{ analyticalStore }

// LoggedPredictions implements explanation.PredictionLog.
func (s loggedPredictions) LoggedPredictions(ctx context.Context, orgID, modelID string, limit int) ([]explanation.LoggedPrediction, error) {
	ps, err := s.Predictions(ctx, analytics.PredictionFilter{OrgID: orgID, ModelID: modelID, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]explanation.LoggedPrediction, len(ps))
	for i, p := range ps {
		out[i] = explanation.LoggedPrediction{Input: p.InputData, Output: p.OutputData}
	}
	return out, nil
}
