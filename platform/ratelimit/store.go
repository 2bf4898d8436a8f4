// Package ratelimit limits request rates and slows down login brute force.
//
// A Limiter counts requests per rule and subject with a sliding-window
// counter; a Lockout delays and finally locks a subject after repeated
// failed logins. Both keep their state in a Store, so replicas that share a
// Store (redisstore.Store) share quota and lockouts, while Memory serves a
// single process.
//
// It imports platform/breaker alone: its stores (redisstore, the
// transactional store's Limits) import it.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/platform/breaker"
)

// Store holds counters that every replica shares. Memory is the in-process
// store; redisstore.Store shares them across replicas through Redis.
//
// Each key names two independent things: a counter (Incr, Get) and a block
// (Block, Blocked). Setting one never changes the other; Delete removes both.
//
// A Store error means the store is unavailable for now and the call may be
// retried; it wraps ErrUnavailable. Callers decide whether to fail open
// (serve the request) or closed (reject it) while the store is down.
type Store interface {
	// Incr adds 1 to key and returns the new value; a key that did not exist
	// starts at 1 and expires after ttl. Later calls do not move the expiry.
	// A ttl <= 0 means the counter never expires.
	Incr(ctx context.Context, key string, ttl time.Duration) (int64, error)
	// Get returns key's value, 0 when missing or expired.
	Get(ctx context.Context, key string) (int64, error)
	// Block marks key blocked for d from now (a longer existing block is
	// kept). A d <= 0 does nothing.
	Block(ctx context.Context, key string, d time.Duration) error
	// Blocked returns how long key stays blocked, 0 when it is not.
	Blocked(ctx context.Context, key string) (time.Duration, error)
	// Delete removes keys (counters and blocks). Missing keys are ignored.
	Delete(ctx context.Context, keys ...string) error
}

// ErrUnavailable is wrapped by every error a Store returns: the store could
// not be reached or did not answer as expected, and the call may be retried.
// Limiter and Lockout wrap Store errors, so errors.Is(err, ErrUnavailable)
// tells them apart from misuse such as an invalid Rule. It wraps
// breaker.ErrUnavailable: it opens Failover's breaker.
var ErrUnavailable = fmt.Errorf("ratelimit: store %w", breaker.ErrUnavailable)

// errNoStore is returned by a Limiter or Lockout whose Store is nil.
var errNoStore = errors.New("ratelimit: no Store set")
