package schedule

import (
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
)

// MinRows is the fewest predictions each side of a comparison must hold;
// fewer skips the run.
const MinRows = 100

// spans are the durations a schedule's interval and window may name.
var spans = map[string]time.Duration{"1h": time.Hour, "6h": 6 * time.Hour, "12h": 12 * time.Hour, "24h": 24 * time.Hour,
	"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// Due reports whether a run of s is due at now: the schedule is on and the
// model's newest report (nil: none) is at least an interval old.
func Due(s drift.ScheduleConfig, last *time.Time, now time.Time) bool {
	if !s.Enabled {
		return false
	}
	interval, ok := spans[s.Interval]
	return ok && (last == nil || !now.Before(last.Add(interval)))
}

// Plan is what one run compares: the profiles of the hours starting in
// Window with those of the hours starting in Reference, or with the
// uploaded reference's when Uploaded is set (Reference is then empty).
type Plan struct {
	Window, Reference analytics.Range
	Uploaded          *drift.Uploaded
}

// NewPlan plans a run of s at now. first is the model's first profiled
// hour (ok false when none is), the start of the default reference: the
// model's first window of logged predictions. The current window covers
// whole hours up to the end of the one holding now, but starts no earlier
// than a reference window ends; a run is skipped, with the reason
// returned as an error, while that leaves nothing to compare. With an
// uploaded reference, the caller sets Uploaded.
func NewPlan(s drift.ScheduleConfig, first time.Time, ok bool, now time.Time) (Plan, error) {
	window, known := spans[s.Window]
	if !known {
		return Plan{}, fmt.Errorf("schedule_config.window %q is not one of 1h, 24h, 7d, 30d", s.Window)
	}
	var p Plan
	var err error
	r := s.Reference
	switch {
	case r.Type == drift.ReferenceUploaded:
	case r.Start != nil && r.End != nil:
		p.Reference = analytics.Range{From: r.Start.UTC(), To: r.End.UTC()}
	case !ok:
		return p, fmt.Errorf("no predictions profiled yet")
	default:
		p.Reference = analytics.Range{From: first, To: first.Add(window)}
	}
	end := now.UTC().Truncate(time.Hour).Add(time.Hour)
	p.Window, err = p.recent(window, end)
	return p, err
}

// recent returns the span of length window ending at end, starting no
// earlier than the reference ends when the two overlap; an error when
// that leaves nothing.
func (p Plan) recent(window time.Duration, end time.Time) (analytics.Range, error) {
	r := analytics.Range{From: end.Add(-window), To: end}
	if p.Reference.From.Before(r.To) && r.From.Before(p.Reference.To) {
		r.From = p.Reference.To
	}
	if !r.From.Before(r.To) {
		return r, fmt.Errorf("the current window is still inside the reference, which ends at %s", p.Reference.To.Format(time.RFC3339))
	}
	return r, nil
}

// ConceptWindow is the span a concept-drift run computes the current
// figure over: c.Window ending where the plan's window ends, starting no
// earlier than the reference ends.
func (p Plan) ConceptWindow(c drift.ConceptDriftConfig) (analytics.Range, error) {
	window, known := spans[c.Window]
	if !known {
		return analytics.Range{}, fmt.Errorf("concept_drift_config.window %q is not one of 1h, 24h, 7d, 30d", c.Window)
	}
	return p.recent(window, p.Window.To)
}
