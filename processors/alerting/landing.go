package alerting

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// Landing tells the evaluator when the processors have landed a minute:
// Settle after the minute ends it reads the event log's end (every event
// stamped before the minute's end is in the log by then: ingest stamps an
// event and appends it at once), and the minute is complete once the
// processors' committed offsets cover that end. While they lag, the
// minute waits: it is never evaluated on half its data.
type Landing struct {
	// Progress reads the log's end and the processors' offsets; required.
	Progress eventlog.Progress
	// Group is the processors' consumer group as Progress names it.
	Group string
}

// landedKinds are the kinds whose rollups alert metrics read.
var landedKinds = []string{eventlog.KindPrediction, eventlog.KindMetric, eventlog.KindCompletion}

// landing is the evaluator's state of its Landing: the last minute end
// known landed and the log's end read for the next one.
type landing struct {
	landed    time.Time        // every event stamped before it is stored
	mark      eventlog.Offsets // the log's end read Settle after markEnd, nil when none is pending
	markEnd   time.Time
	markSince time.Time // when mark was read
	warned    bool      // the wait for mark was logged
}

// completeEnd returns the end of the last complete minute at now, zero
// when none is known complete yet. Without a Landing that is
// WindowEnd(now); with one, the last minute end whose log end the
// processors have covered. Called under e.mu.
func (e *Evaluator) completeEnd(ctx context.Context, now time.Time) (time.Time, error) {
	due := e.WindowEnd(now)
	if e.Landing == nil {
		return due, nil
	}
	l := &e.landing
	// Twice at most: the pending mark, then, when it was covered, a mark
	// for the latest due minute, which idle processors cover at once.
	for range 2 {
		if l.mark == nil {
			if !due.After(l.landed) {
				break
			}
			end, err := e.Landing.Progress.End(ctx, landedKinds...)
			if err != nil {
				return l.landed, fmt.Errorf("read the event log's end: %w", err)
			}
			l.mark, l.markEnd, l.markSince, l.warned = end, due, now, false
		}
		committed, err := e.Landing.Progress.Committed(ctx, e.Landing.Group, landedKinds...)
		if err != nil {
			return l.landed, fmt.Errorf("read the processors' offsets: %w", err)
		}
		if !committed.Covers(l.mark) {
			if wait := now.Sub(l.markSince); wait > time.Minute && !l.warned {
				e.logger().Warn("alert evaluation waits for the processors to land a minute", "minute_end", l.markEnd, "waited", wait)
				l.warned = true
			}
			break
		}
		l.landed, l.mark = l.markEnd, nil
	}
	return l.landed, nil
}
