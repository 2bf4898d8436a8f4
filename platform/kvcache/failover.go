package kvcache

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/platform/breaker"
)

// Failover is a Cache that keeps values in Primary (Redis, shared by every
// replica) while Primary answers, and in Fallback (in process) while it
// does not. Breaker chooses: a call that Primary fails with an error
// wrapping breaker.ErrUnavailable opens it and is answered by Fallback (a
// Get finds what Fallback holds); the calls after it go to Fallback at
// once, without touching Primary, until a probe closes it again.
//
// While open, each process caches for itself, and what it cached then is
// not found in Primary later: a cache holds results that can be made
// again. Primary's outages are never returned; its other errors and
// Fallback's are. Breaker's zero value works; set its Probe (a Redis
// PING) so that calls go back to Primary only once it answers. It is safe
// for concurrent use.
type Failover struct {
	Primary  Cache
	Fallback Cache
	Breaker  breaker.Breaker
}

var _ Cache = (*Failover)(nil)

// Up reports whether calls go to Primary (the breaker is closed).
func (f *Failover) Up() bool { return f.Breaker.Up() }

// Get implements Cache.
func (f *Failover) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if f.Breaker.Allow() {
		v, ok, err := f.Primary.Get(ctx, key)
		if !f.Breaker.Trip(ctx, err) {
			return v, ok, err
		}
	}
	return f.Fallback.Get(ctx, key)
}

// Set implements Cache.
func (f *Failover) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if f.Breaker.Allow() {
		err := f.Primary.Set(ctx, key, v, ttl)
		if !f.Breaker.Trip(ctx, err) {
			return err
		}
	}
	return f.Fallback.Set(ctx, key, v, ttl)
}
