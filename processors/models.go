package processors

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// Models is the model registry as the processors read it: whether a model
// still exists in an organization. An event whose model was deleted after
// the event was logged is dropped rather than stored.
type Models interface {
	// ModelExists reports whether the organization has the model; an
	// error means the registry could not answer, and the batch is retried.
	ModelExists(ctx context.Context, orgID, modelID string) (bool, error)
}

// DefaultModelTTL is the default of Processor.ModelTTL.
const DefaultModelTTL = 5 * time.Second

// maxCachedModels bounds the cache; past it, the cache starts over.
const maxCachedModels = 100_000

// modelCache remembers Models' answers for a while, so that the registry
// is asked once per model and period rather than once per event. A model
// deleted less than the TTL ago may still see events stored. It is used by
// one goroutine, the processor's.
type modelCache struct {
	models Models
	ttl    time.Duration
	seen   map[modelRef]cachedModel
}

type modelRef struct{ org, model string }

type cachedModel struct {
	exists bool
	until  time.Time
}

func (c *modelCache) exists(ctx context.Context, ref modelRef, now time.Time) (bool, error) {
	if m, ok := c.seen[ref]; ok && now.Before(m.until) {
		return m.exists, nil
	}
	ok, err := c.models.ModelExists(ctx, ref.org, ref.model)
	if err != nil {
		return false, fmt.Errorf("model registry: %w", err)
	}
	if c.seen == nil || len(c.seen) >= maxCachedModels {
		c.seen = map[modelRef]cachedModel{}
	}
	c.seen[ref] = cachedModel{exists: ok, until: now.Add(c.ttl)}
	return ok, nil
}

// filter returns b without the events of deleted models, and how many of
// each kind it left out.
func (c *modelCache) filter(ctx context.Context, b analytics.Batch, now time.Time) (analytics.Batch, map[string]int, error) {
	keep := func(org, model string) (bool, error) { return c.exists(ctx, modelRef{org, model}, now) }
	out := analytics.Batch{Positions: b.Positions}
	var err error
	if out.Predictions, err = keepIf(b.Predictions, func(e eventlog.Prediction) (bool, error) { return keep(e.OrgID, e.ModelID) }); err != nil {
		return b, nil, err
	}
	if out.Metrics, err = keepIf(b.Metrics, func(e eventlog.Metric) (bool, error) { return keep(e.OrgID, e.ModelID) }); err != nil {
		return b, nil, err
	}
	if out.Completions, err = keepIf(b.Completions, func(e eventlog.Completion) (bool, error) { return keep(e.OrgID, e.ModelID) }); err != nil {
		return b, nil, err
	}
	return out, map[string]int{
		eventlog.KindPrediction: len(b.Predictions) - len(out.Predictions),
		eventlog.KindMetric:     len(b.Metrics) - len(out.Metrics),
		eventlog.KindCompletion: len(b.Completions) - len(out.Completions),
	}, nil
}

// keepIf returns the events for which ok holds: es itself when all do
// (the common case, which then copies nothing), else a new slice.
func keepIf[E any](es []E, ok func(E) (bool, error)) ([]E, error) {
	var out []E
	for i, e := range es {
		keep, err := ok(e)
		if err != nil {
			return nil, err
		}
		switch {
		case !keep && out == nil:
			out = append(make([]E, 0, len(es)-1), es[:i]...)
		case keep && out != nil:
			out = append(out, e)
		}
	}
	if out == nil {
		return es, nil
	}
	return out, nil
}
