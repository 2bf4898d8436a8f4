package alerts

import (
	"context"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
)

// window is what a condition asks of its metric's reader.
type window struct {
	// param is the free part of a family's name: accuracy in
	// metric:accuracy, "" for a metric of its own.
	param string
	// minutes is the window's length, by which the Observer keeps what it
	// has read; rng the window itself.
	minutes int
	rng     analytics.Range
}

// A reader observes a metric of the catalogue over a window: nil when the
// window holds no value.
type reader interface {
	read(ctx context.Context, o *Observer, w window) (*float64, error)
}

// fromPredictions reads a metric from the window's prediction summary.
type fromPredictions func(st *analytics.PredictionStats) *float64

func (f fromPredictions) read(ctx context.Context, o *Observer, w window) (*float64, error) {
	st, err := o.predictions(ctx, w.minutes, w.rng)
	if err != nil {
		return nil, err
	}
	return f(st), nil
}

// fromCompletions reads a metric from the window's LLM completions summed
// over their groups.
type fromCompletions func(g *analytics.CompletionGroup) *float64

func (f fromCompletions) read(ctx context.Context, o *Observer, w window) (*float64, error) {
	g, err := o.completions(ctx, w.minutes, w.rng)
	if err != nil {
		return nil, err
	}
	return f(g), nil
}

// fromReport reads a metric from the model's newest data-drift report
// written in the window; without one the window holds no value.
type fromReport func(r *drift.Report, param string) *float64

func (f fromReport) read(ctx context.Context, o *Observer, w window) (*float64, error) {
	r, err := o.report(ctx, w.minutes, w.rng)
	if err != nil || r == nil {
		return nil, err
	}
	return f(r, w.param), nil
}

// readFunc is a reader that reads its source itself.
type readFunc func(o *Observer, ctx context.Context, w window) (*float64, error)

func (f readFunc) read(ctx context.Context, o *Observer, w window) (*float64, error) {
	return f(o, ctx, w)
}

// featureDrift is the drift_score of the report's feature named by
// param, nil when the report has no such feature.
func featureDrift(r *drift.Report, param string) *float64 {
	f, ok := r.Features[param]
	if !ok {
		return nil
	}
	return ptr(f.DriftScore)
}

// completionLatency is the mean latency_ms of the completions that
// reported one, nil when none did.
func completionLatency(g *analytics.CompletionGroup) *float64 {
	if g.LatencyCount == 0 {
		return nil
	}
	return ptr(g.LatencySum / float64(g.LatencyCount))
}
