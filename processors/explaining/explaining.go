// Package explaining is the processor-role service that auto-explains
// logged predictions (issue 16 point 4): it reads the prediction events
// with a consumer group of its own (Group), so that it neither waits for
// nor holds back the analytical writes and their offsets, hands each
// polled batch to autoexplain.Explainer (sampling, the budget of work
// per second, one explanation per prediction) and commits the batch's
// offsets once the explanations are stored. A store failure is retried
// with a growing pause and the batch is not committed meanwhile; a replay
// explains nothing twice (the store keeps one auto explanation per
// prediction). Beside it, every Refresh and after each batch that stored
// explanations, coverage.Coverer recomputes explained_predictions_ratio
// for the trust score.
//
// It imports the eventlog contract, explanation/autoexplain and
// explanation/coverage, the platform and the store errors; it must not
// import an engine, the API packages or the analytical store.
package explaining

import (
	"context"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/explanation/coverage"
	"github.com/vigilhq/vigil/platform/clock"
)

// Group is the auto-explainer's consumer group on the event log (after
// the topic prefix on Kafka).
const Group = "auto-explain"

// DefaultRefresh is how often the explained ratios are recomputed.
const DefaultRefresh = time.Minute

// Service runs the auto-explainer over Source and keeps the ratios.
type Service struct {
	Source   eventlog.Source
	Explain  *autoexplain.Explainer
	Coverage *coverage.Coverer
	// Refresh is how often the ratios are recomputed (DefaultRefresh).
	Refresh time.Duration
	Log     *slog.Logger
	// MaxBackoff caps the pause between retries of a failed batch
	// (default 30 s).
	MaxBackoff time.Duration

	wake clock.Waker
}

// Run explains until ctx ends; a batch cut short is not committed and is
// read again on the next start.
func (s *Service) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.refresh(ctx)
	}()
	defer func() { <-done }()
	for {
		msgs, err := s.Source.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			s.Log.Warn("auto-explain: event log poll failed; retrying", "err", err)
			if !clock.Sleep(ctx, time.Second) {
				return nil
			}
			continue
		}
		if !s.batch(ctx, Logged(s.Log, s.explained(ctx, msgs))) {
			return nil
		}
		if err := s.Source.Commit(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn("auto-explain: committing offsets failed; the batch will be read again and skipped", "err", err)
		}
	}
}

// explained is msgs without the predictions of models that are not
// auto-explained, told apart by the record's organization and model alone
// (eventlog.RecordModel), so that those are never decoded. A record that
// is not a binary prediction, or whose model's configuration cannot be
// read now, is kept: Logged and Explain deal with it as before.
func (s *Service) explained(ctx context.Context, msgs []eventlog.Message) []eventlog.Message {
	out := msgs[:0:0]
	var lastOrg, lastModel string
	var lastKeep bool
	for _, m := range msgs {
		org, model, ok := eventlog.RecordModel(m.Value)
		if ok && (org != lastOrg || model != lastModel || lastOrg == "") {
			keep, err := s.Explain.Explains(ctx, org, model)
			lastOrg, lastModel, lastKeep = org, model, keep || err != nil
		}
		if !ok || lastKeep {
			out = append(out, m)
		}
	}
	return out
}

// batch explains ps, retrying while the store fails; false when ctx ended
// first.
func (s *Service) batch(ctx context.Context, ps []autoexplain.Logged) bool {
	if len(ps) == 0 {
		return true
	}
	backoff := time.Second
	for {
		t, err := s.Explain.Explain(ctx, ps)
		if err == nil {
			if t.Shed > 0 {
				s.Log.Warn("auto-explain: over the budget of explanations a second; sampled predictions shed", "shed", t.Shed)
			}
			if len(t.Models) > 0 {
				s.wake.Wake()
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.Log.Warn("auto-explain: storing explanations failed; retrying, offsets stay uncommitted", "err", err)
		if !clock.Sleep(ctx, backoff) {
			return false
		}
		backoff = min(2*backoff, s.maxBackoff())
	}
}

func (s *Service) maxBackoff() time.Duration {
	if s.MaxBackoff > 0 {
		return s.MaxBackoff
	}
	return 30 * time.Second
}

// refresh recomputes the ratios every Refresh and when woken, until ctx
// ends.
func (s *Service) refresh(ctx context.Context) {
	every := s.Refresh
	if every <= 0 {
		every = DefaultRefresh
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for ctx.Err() == nil {
		if _, err := s.Coverage.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn("auto-explain: recomputing explained ratios failed", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-s.wake.C():
		}
	}
}

// Logged reads the prediction events of msgs; another kind is skipped,
// and an event that does not decode is logged and skipped (the analytical
// processor sets it aside).
func Logged(log *slog.Logger, msgs []eventlog.Message) []autoexplain.Logged {
	var out []autoexplain.Logged
	for _, m := range msgs {
		if m.Kind != eventlog.KindPrediction {
			continue
		}
		var e eventlog.Prediction
		if err := eventlog.DecodeEvent(m.Value, &e); err != nil {
			log.Warn("auto-explain: skipping an undecodable prediction", "partition", m.Partition, "offset", m.Offset, "err", err)
			continue
		}
		out = append(out, autoexplain.Logged{OrgID: e.OrgID, ModelID: e.ModelID, PredictionID: e.PredictionID, Input: e.InputData})
	}
	return out
}
