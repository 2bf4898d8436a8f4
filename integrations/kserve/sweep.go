package kserve

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
)

// sweepBatch is how many stale pairs one read takes.
const sweepBatch = 500

// Sweeper ends the pairs that waited too long: a complete one (its
// prediction not logged, the log having failed) is logged; a half whose
// other half never came is set aside as a dead letter, and forgotten.
type Sweeper struct {
	Pairs Store
	Log   appender
	// DeadLetters sets the halves aside, durably, counted by the
	// analytical store's dead letters (GET /dead-letters, the
	// dead_letters metric); idempotent by organization and event id.
	DeadLetters func(ctx context.Context, halves []Pair, now time.Time) error
	// Expiry is how long a half waits for the other.
	Expiry time.Duration
	// Every is how often the sweeper looks.
	Every time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Failed is told of a sweep that failed; it is tried again at the
	// next tick.
	Failed func(err error)
}

// Run sweeps every Every until ctx ends.
func (s *Sweeper) Run(ctx context.Context) error {
	clock.Every(ctx, s.Every, s.Sweep, s.Failed)
	return nil
}

// Sweep ends every pair whose first half came more than Expiry ago.
func (s *Sweeper) Sweep(ctx context.Context) error {
	for {
		now := s.Clock.Now()
		ps, err := s.Pairs.StalePairs(ctx, now.Add(-s.Expiry), sweepBatch)
		if err != nil || len(ps) == 0 {
			return err
		}
		var complete, halves []Pair
		for _, p := range ps {
			if p.Complete() {
				complete = append(complete, p)
			} else {
				halves = append(halves, p)
			}
		}
		if len(complete) > 0 {
			if err := logPairs(ctx, s.Log, s.Pairs, complete, now); err != nil {
				return err
			}
		}
		if len(halves) > 0 {
			if err := s.DeadLetters(ctx, halves, now); err != nil {
				return err
			}
			for _, p := range halves {
				if err := s.Pairs.DeletePair(ctx, p.OrgID, p.EventID); err != nil {
					return err
				}
			}
		}
		if len(ps) < sweepBatch {
			return nil
		}
	}
}

// Reason says which half is missing, for the dead letter.
func (p Pair) Reason(expiry time.Duration) string {
	if p.Request == nil {
		return "kserve: the response's request did not come within " + expiry.String()
	}
	return "kserve: the request's response did not come within " + expiry.String()
}
