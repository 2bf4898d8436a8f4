package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/vigilhq/vigil/platform/breaker"
)

// Failover is a Store that keeps its counters in Primary (Redis, shared by
// every replica) while Primary answers, and in Fallback (in process) while
// it does not, behind a breaker.Breaker: the first call that Primary fails
// with ErrUnavailable opens it and is answered by Fallback, the calls after
// it go to Fallback at once, and a probe of Primary in the background, at
// most every Interval, closes it again.
//
// While open, limits hold per process rather than across replicas. A call
// whose own context is done when Primary fails does not open the breaker:
// the caller gave up, Primary did not. Failover never returns
// ErrUnavailable for Primary's failures; Fallback's errors pass through.
// It is safe for concurrent use; its fields are read at the first call.
type Failover struct {
	Primary  Store
	Fallback Store
	// Probe checks Primary (a Redis PING); nil means a Get on Primary.
	Probe func(context.Context) error
	// Interval is the least time between two probes; 0 means one second.
	Interval time.Duration
	// OnChange, when set, is called with false when the breaker opens and
	// with true when it closes (a log line, a metric).
	OnChange func(up bool, err error)
	// Now defaults to time.Now; tests set it.
	Now func() time.Time

	once sync.Once
	b    breaker.Breaker
}

var (
	_ Store  = (*Failover)(nil)
	_ Slider = (*Failover)(nil)
)

// Up reports whether calls go to Primary (the breaker is closed).
func (f *Failover) Up() bool { return f.breaker().Up() }

// breaker returns the breaker, made from f's fields at the first call.
func (f *Failover) breaker() *breaker.Breaker {
	f.once.Do(func() {
		probe := f.Probe
		if probe == nil {
			probe = func(ctx context.Context) error {
				_, err := f.Primary.Get(ctx, "failover-probe")
				return err
			}
		}
		f.b = breaker.Breaker{Probe: probe, Interval: f.Interval, OnChange: f.OnChange, Now: f.Now}
	})
	return &f.b
}

// pick returns the Store the next call goes to, and whether it is Primary.
func (f *Failover) pick() (Store, bool) {
	if f.breaker().Allow() {
		return f.Primary, true
	}
	return f.Fallback, false
}

// failed reports whether err, Primary's answer to a call made with ctx,
// is an outage (and opens the breaker): the call is then answered by
// Fallback.
func (f *Failover) failed(ctx context.Context, err error) bool {
	return f.breaker().Trip(ctx, err)
}

// Incr implements Store.
func (f *Failover) Incr(ctx context.Context, key string, ttl time.Duration) (int64, error) {
	s, primary := f.pick()
	n, err := s.Incr(ctx, key, ttl)
	if primary && f.failed(ctx, err) {
		return f.Fallback.Incr(ctx, key, ttl)
	}
	return n, err
}

// Get implements Store.
func (f *Failover) Get(ctx context.Context, key string) (int64, error) {
	s, primary := f.pick()
	n, err := s.Get(ctx, key)
	if primary && f.failed(ctx, err) {
		return f.Fallback.Get(ctx, key)
	}
	return n, err
}

// Block implements Store.
func (f *Failover) Block(ctx context.Context, key string, d time.Duration) error {
	s, primary := f.pick()
	err := s.Block(ctx, key, d)
	if primary && f.failed(ctx, err) {
		return f.Fallback.Block(ctx, key, d)
	}
	return err
}

// Blocked implements Store.
func (f *Failover) Blocked(ctx context.Context, key string) (time.Duration, error) {
	s, primary := f.pick()
	d, err := s.Blocked(ctx, key)
	if primary && f.failed(ctx, err) {
		return f.Fallback.Blocked(ctx, key)
	}
	return d, err
}

// Delete implements Store. It deletes from Fallback too, so that a key
// removed during an outage (a successful login) is not found there later.
func (f *Failover) Delete(ctx context.Context, keys ...string) error {
	s, primary := f.pick()
	err := s.Delete(ctx, keys...)
	if primary {
		if f.failed(ctx, err) {
			return f.Fallback.Delete(ctx, keys...)
		}
		if err == nil {
			err = f.Fallback.Delete(ctx, keys...)
		}
	}
	return err
}

// Slide implements Slider: in one call on a Store that is a Slider,
// else as Get, Get and Incr.
func (f *Failover) Slide(ctx context.Context, step Step) (prev, cur int64, counted bool, err error) {
	s, primary := f.pick()
	prev, cur, counted, err = slideOn(ctx, s, step)
	if primary && f.failed(ctx, err) {
		return slideOn(ctx, f.Fallback, step)
	}
	return prev, cur, counted, err
}

// slideOn takes step on s: through Slide when s is a Slider, else by
// reading both counts and counting the request when step fits them.
func slideOn(ctx context.Context, s Store, step Step) (prev, cur int64, counted bool, err error) {
	if sl, ok := s.(Slider); ok {
		return sl.Slide(ctx, step)
	}
	if prev, err = s.Get(ctx, step.PrevKey); err != nil {
		return 0, 0, false, err
	}
	if cur, err = s.Get(ctx, step.CurKey); err != nil {
		return 0, 0, false, err
	}
	if !step.Fits(prev, cur) {
		return prev, cur, false, nil
	}
	if cur, err = s.Incr(ctx, step.CurKey, 2*step.Window); err != nil {
		return 0, 0, false, err
	}
	// A race lost between the reads and the Incr: counted, yet rejected.
	return prev, cur, step.Fits(prev, cur-1), nil
}
