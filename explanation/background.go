package explanation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Sources of an explanation's background rows (background_source): the
// request's own, the sample of the model's uploaded drift reference, or
// the inputs of its newest logged predictions (a surrogate's training
// rows).
const (
	BackgroundRequest        = "request"
	BackgroundDriftReference = "drift_reference"
	BackgroundLogged         = "logged_predictions"
)

// ReferenceSample reads the rows kept of a model's uploaded drift
// reference (drift.Sample); the transactional store is one.
type ReferenceSample interface {
	// DriftReferenceSample returns the rows kept of the organization's
	// model's uploaded reference_data, feature name to value;
	// store.ErrNotFound when it has no uploaded reference (another
	// organization's model has none).
	DriftReferenceSample(ctx context.Context, orgID, modelID string) ([]map[string]any, error)
}

// A fallback is a source of background rows for a request that sends
// none: rows reads them (none when the source has none).
type fallback struct {
	source string
	rows   func() ([]map[string]any, error)
}

// fallbacks are the sources of a request without background rows, in
// order: the model's drift reference sample, then the inputs of its
// newest logged predictions (up to surrogateBackground). None without
// Access.
//
// Background rows: a method that needs them (kernel_shap, lime, linear
// SHAP, every method of a served model) takes the request's, else the
// sample of the model's uploaded drift reference (ReferenceSample: the
// transactional store's drift.Sample), else the inputs of its newest
// logged predictions (a surrogate's training rows); rows the request path
// would refuse are skipped, and the outcome states BackgroundSource and
// BackgroundRows. Path-dependent TreeSHAP takes none.
func (a *Access) fallbacks(ctx context.Context, orgID, modelID string) []fallback {
	if a == nil {
		return nil
	}
	return []fallback{a.reference(ctx, orgID, modelID), once(fallback{source: BackgroundLogged, rows: func() ([]map[string]any, error) {
		if a.Logged == nil {
			return nil, nil
		}
		logged, err := a.Logged.LoggedPredictions(ctx, orgID, modelID, surrogateBackground)
		if err != nil {
			return nil, fmt.Errorf("read logged predictions for background rows: %w", err)
		}
		var out []map[string]any
		for _, p := range logged {
			var in map[string]any
			if json.Unmarshal(p.Input, &in) == nil && in != nil {
				out = append(out, in)
			}
		}
		return out, nil
	}})}
}

// once is f reading its rows at most once (a bulk request's instances
// share them).
func once(f fallback) fallback {
	var rows []map[string]any
	var err error
	read := false
	return fallback{source: f.source, rows: func() ([]map[string]any, error) {
		if !read {
			rows, err = f.rows()
			read = true
		}
		return rows, err
	}}
}

// reference is the fallback of the model's drift reference sample.
func (a *Access) reference(ctx context.Context, orgID, modelID string) fallback {
	return once(fallback{source: BackgroundDriftReference, rows: func() ([]map[string]any, error) {
		if a.References == nil {
			return nil, nil
		}
		rows, err := a.References.DriftReferenceSample(ctx, orgID, modelID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the drift reference's sample for background rows: %w", err)
		}
		return rows, nil
	}})
}

// rowReader reads one row in a model's feature order, naming its fields
// under field (instance, background[i]): 422 naming field.NAME.
type rowReader func(instance map[string]any, field string) ([]float64, error)

// read fills p's row and background from req with read, over a model of
// features: at most MaxBackground rows (422 on background). When req sends
// none and need holds, the background is that of the first of fallbacks
// with a row read accepts (and complete accepts, when set: LIME samples
// around numbers), each row's fields that are not features left out;
// rows read refuses are skipped, as a request's would be refused. 422 on
// background when need holds and no source has a row. Of the rows taken,
// the first req.BackgroundSamples are kept when it is set (config's
// background_samples).
func (p *plan) read(req Request, features []string, read rowReader, need bool, complete func([]float64) bool, fallbacks []fallback) error {
	err := p.fill(req, features, read, need, complete, fallbacks)
	if n := req.BackgroundSamples; n > 0 {
		p.background = p.background[:min(n, len(p.background))]
		p.used = p.used[:min(n, len(p.used))]
	}
	return err
}

// fill is read without the cap of background_samples.
func (p *plan) fill(req Request, features []string, read rowReader, need bool, complete func([]float64) bool, fallbacks []fallback) error {
	var err error
	if p.row, err = read(req.Instance, "instance"); err != nil {
		return err
	}
	if len(req.Background) > MaxBackground {
		return web.Invalid("background", fmt.Sprintf("has %d rows; at most %d", len(req.Background), MaxBackground))
	}
	for i, b := range req.Background {
		r, err := read(b, fmt.Sprintf("background[%d]", i))
		if err != nil {
			return err
		}
		p.background = append(p.background, r)
	}
	if len(p.background) > 0 {
		p.source = BackgroundRequest
		return nil
	}
	if !need {
		return nil
	}
	for _, f := range fallbacks {
		rows, err := f.rows()
		if err != nil {
			return err
		}
		for _, row := range rows[:min(len(rows), MaxBackground)] {
			kept := project(row, features)
			r, err := read(kept, "background")
			if err != nil || complete != nil && !complete(r) {
				continue
			}
			p.background, p.used = append(p.background, r), append(p.used, kept)
		}
		if len(p.background) > 0 {
			p.source = f.source
			return nil
		}
	}
	return web.Invalid("background", "is required: send rows like the instance, or upload the model's drift reference "+
		"(PUT /drift/reference/{model_id}) or log predictions of it, whose rows are taken when a request sends none")
}

// project is row without the fields that are not features.
func project(row map[string]any, features []string) map[string]any {
	out := make(map[string]any, len(features))
	for _, f := range features {
		if v, ok := row[f]; ok {
			out[f] = v
		}
	}
	return out
}

// full reports whether row holds no missing value.
func full(row []float64) bool {
	for _, x := range row {
		if math.IsNaN(x) {
			return false
		}
	}
	return true
}
