package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/integrations/kserve"
)

// kserveAPI is KServe's payload-logging receiver, and the sweeper, in the
// API role, that ends the pairs that waited past VIGIL_KSERVE_PAIR_TIMEOUT:
// logged when complete, else set aside as dead letters.
func (a *App) kserveAPI() *kserve.API {
	timeout := a.cfg.KServePairTimeout
	sweeper := &kserve.Sweeper{Pairs: a.store, Log: a.events, Expiry: timeout, Every: min(timeout/2, 30*time.Second),
		Clock: a.clock(), DeadLetters: kserveDeadLetters(a.analytics, timeout),
		Failed: func(err error) { a.log.Warn("kserve pair sweep failed; trying again", "err", err) }}
	a.services = append(a.services, service{"kserve-pairs", sweeper.Run})
	return &kserve.API{Pairs: a.store, Models: a.store, Log: a.events, Clock: a.clock()}
}

// kserveDeadLetters sets the halves that never met their other half aside
// in the analytical store's dead letters, as the prediction they would
// have logged (the missing half {}), so that GET /dead-letters lists them
// and the dead_letters metric counts them.
func kserveDeadLetters(dl analytics.DeadLetters, timeout time.Duration) func(ctx context.Context, ps []kserve.Pair, now time.Time) error {
	return func(ctx context.Context, ps []kserve.Pair, now time.Time) error {
		out := make([]analytics.DeadLetter, 0, len(ps))
		for _, p := range ps {
			// The dead letter keeps the event as JSON (GET /dead-letters
			// shows it), not as the log's binary record.
			b, err := json.Marshal(p.Prediction(now))
			if err != nil {
				return err
			}
			out = append(out, analytics.DeadLetter{OrgID: p.OrgID, Kind: eventlog.KindPrediction, ModelID: p.ModelID,
				EventID: p.EventID, Event: b, Reason: p.Reason(timeout), FailedAt: now})
		}
		return dl.SetAside(ctx, out)
	}
}
