package drift

import (
	"context"
	"sort"

	"github.com/vigilhq/vigil/platform/web"
)

// answer is POST /drift/detect's answer to body, a route declared
// TypedBody, so that no check has read the body before: exactly the answer
// of web.CheckJSON (the check every other route's body passes before its
// handler), then ParseRequest, then config (the model's configuration, or
// its error: a 404 for an unknown model), then Detect.
//
// A body read whole without a problem is never read by the generic check:
// the quick parse locates its columns, web.CheckJSON checks everything
// but the columns of numbers (the holes), and Detect's readColumn, which
// refuses whatever the check would (a syntax error, a number beyond
// float64) and more, reads those on every core; the columns of features
// the model's configuration skips, which Detect does not read, are
// checked one by one. Any other outcome, an error at any step, has the
// whole body checked first, and that check's refusal is the answer.
func (d Detector) answer(ctx context.Context, body []byte, config func(context.Context, string) (Config, error)) (Result, error) {
	s := scanner{b: body, quick: true}
	req, err := s.parse()
	if err != nil || !s.confirm() || web.CheckJSON(body, true, s.holes...) != nil {
		if err := web.CheckJSON(body, true); err != nil {
			return Result{}, err
		}
		if req, err = ParseRequest(body); err != nil {
			return Result{}, err
		}
		return d.configured(ctx, req, config)
	}
	res, err := d.configured(ctx, req, config)
	if err == nil && skippedWellFormed(req, res.Skipped) {
		return res, nil
	}
	if err := web.CheckJSON(body, true); err != nil {
		return Result{}, err
	}
	return res, err
}

// configured looks the model's configuration up with config and runs
// Detect with it.
func (d Detector) configured(ctx context.Context, req Request, config func(context.Context, string) (Config, error)) (Result, error) {
	cfg, err := config(ctx, req.ModelID)
	if err != nil {
		return Result{}, err
	}
	res, err := d.Detect(ctx, req, cfg)
	res.transient = req.Record != nil && !*req.Record
	return res, err
}

// skippedWellFormed reports whether the columns of the skipped features,
// which Detect left unread, pass web.CheckJSON. req.Features is sorted by
// name.
func skippedWellFormed(req Request, skipped []string) bool {
	for _, name := range skipped {
		i := sort.Search(len(req.Features), func(i int) bool { return req.Features[i].Name >= name })
		if i == len(req.Features) || req.Features[i].Name != name {
			return false
		}
		f := req.Features[i]
		if web.CheckJSON(f.Reference, true) != nil || web.CheckJSON(f.Current, true) != nil {
			return false
		}
	}
	return true
}
