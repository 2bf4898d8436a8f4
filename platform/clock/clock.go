// Package clock is Vigil's notion of now: UTC, truncated to the microsecond
// that every store keeps, so a time written and read back compares equal.
//
// It imports nothing of Vigil.
package clock

import (
	"context"
	"time"
)

// Clock tells the time; the zero value is the system clock. Tests set it
// to a fixed or moving time.
type Clock func() time.Time

// Now returns the current time in UTC, truncated to the microsecond.
func (c Clock) Now() time.Time {
	t := time.Now()
	if c != nil {
		t = c()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// Sleep pauses for d and reports whether it did; false when ctx ended
// first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Every runs fn, then pauses for tick, until ctx ends; an error of fn is
// handed to failed (when ctx has not ended) and the loop goes on. It is
// the loop of the processor role's timed services.
func Every(ctx context.Context, tick time.Duration, fn func(ctx context.Context) error, failed func(err error)) {
	for {
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			failed(err)
		}
		if !Sleep(ctx, tick) {
			return
		}
	}
}
