// Package breaker is the circuit breaker that puts a fallback in place of
// a shared engine (Redis) the moment it stops answering: a request then
// costs no timeout, and a probe in the background goes back to the engine
// once it answers again. ratelimit.Failover and kvcache.Failover use it.
//
// It imports nothing of Vigil.
package breaker

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrUnavailable is wrapped by the errors that open a Breaker: the primary
// could not be reached or did not answer (a refused dial, a reset
// connection, a timeout), and the call may be retried later.
var ErrUnavailable = errors.New("unavailable")

// Breaker tells its caller whether a call goes to the primary (closed) or
// to the fallback (open). The first call whose error Trip counts opens it
// and is answered by the fallback; from then on every call goes to the
// fallback at once, without touching the primary, so that an outage of
// the primary costs no request a timeout. While open, a call made at
// least Interval after the last probe starts one probe of the primary in
// the background; the probe that succeeds closes the breaker, and the
// calls after it go to the primary again.
//
// A call whose own context is done when the primary fails does not open
// the breaker: the caller gave up, the primary did not. The zero value is
// closed and ready to use. It is safe for concurrent use.
type Breaker struct {
	// Probe checks the primary (a Redis PING). Nil means no check: the
	// breaker closes once Interval has passed, and the next failure
	// opens it again.
	Probe func(context.Context) error
	// Interval is the least time between two probes, and each probe's
	// time limit; 0 means one second.
	Interval time.Duration
	// OnChange, when set, is called with false and the error when the
	// breaker opens, and with true when it closes (a log line, a metric).
	OnChange func(up bool, err error)
	// Now defaults to time.Now; tests set it.
	Now func() time.Time

	mu        sync.Mutex
	down      bool
	probing   bool
	lastProbe time.Time
}

// Up reports whether calls go to the primary (the breaker is closed).
func (b *Breaker) Up() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.down
}

// Allow reports whether the next call goes to the primary. While the
// breaker is open it answers false and starts a probe once Interval has
// passed since the last.
func (b *Breaker) Allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.down {
		return true
	}
	if now := b.now(); !b.probing && now.Sub(b.lastProbe) >= b.interval() {
		b.probing, b.lastProbe = true, now
		go b.probe()
	}
	return false
}

// Trip takes err, the primary's answer to a call made with ctx, and
// reports whether it is an outage (err wraps ErrUnavailable and ctx is
// not done), which the fallback then answers; the first outage opens the
// breaker.
func (b *Breaker) Trip(ctx context.Context, err error) bool {
	if err == nil || !errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
		return false
	}
	b.mu.Lock()
	opened := !b.down
	if opened {
		b.down, b.lastProbe = true, b.now()
	}
	b.mu.Unlock()
	if opened && b.OnChange != nil {
		b.OnChange(false, err)
	}
	return true
}

// probe checks the primary once and closes the breaker when it answers.
func (b *Breaker) probe() {
	var err error
	if b.Probe != nil {
		ctx, cancel := context.WithTimeout(context.Background(), b.interval())
		err = b.Probe(ctx)
		cancel()
	}
	b.mu.Lock()
	b.probing = false
	closed := err == nil && b.down
	if closed {
		b.down = false
	}
	b.mu.Unlock()
	if closed && b.OnChange != nil {
		b.OnChange(true, nil)
	}
}

func (b *Breaker) interval() time.Duration {
	if b.Interval > 0 {
		return b.Interval
	}
	return time.Second
}

func (b *Breaker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}
