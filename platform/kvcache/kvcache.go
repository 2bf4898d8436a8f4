// Package kvcache keeps byte values under string keys for a time to live:
// in process (Memory, bounded) on the embedded default, in Redis (Redis)
// when one is configured, so that every replica shares it. A value is
// gone once its time is up; a missing key is not an error. It serves
// computed results that are costly to make again (explanations, issue
// 16), never the only copy of anything.
//
// Failover keeps the values in Redis while it answers and in process while
// it does not, behind a breaker.Breaker, so that an outage of Redis costs
// no call a timeout.
//
// It imports the platform's clock and breaker and go-redis; it must not
// import a store or an API package.
package kvcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/breaker"
	"github.com/vigilhq/vigil/platform/clock"
)

// Cache keeps values for a time.
type Cache interface {
	// Get returns key's value; false when there is none or its time is up.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set keeps v under key for ttl, in place of any value.
	Set(ctx context.Context, key string, v []byte, ttl time.Duration) error
}

// DefaultMaxEntries bounds a Memory whose Max is zero.
const DefaultMaxEntries = 10_000

// Memory is the in-process Cache. Past Max entries, a Set first drops the
// expired ones and then, while still full, the entry that expires first.
// The zero value is ready to use.
type Memory struct {
	Max   int
	Clock clock.Clock

	mu      sync.Mutex
	entries map[string]memoryEntry
}

type memoryEntry struct {
	v       []byte
	expires time.Time
}

// Get implements Cache.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	now := m.Clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || !now.Before(e.expires) {
		return nil, false, nil
	}
	return append([]byte(nil), e.v...), true, nil
}

// Set implements Cache.
func (m *Memory) Set(_ context.Context, key string, v []byte, ttl time.Duration) error {
	now := m.Clock.Now()
	max := m.Max
	if max <= 0 {
		max = DefaultMaxEntries
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]memoryEntry{}
	}
	if _, ok := m.entries[key]; !ok && len(m.entries) >= max {
		m.evict(now, max)
	}
	m.entries[key] = memoryEntry{v: append([]byte(nil), v...), expires: now.Add(ttl)}
	return nil
}

// evict makes room for one entry.
func (m *Memory) evict(now time.Time, max int) {
	for k, e := range m.entries {
		if !now.Before(e.expires) {
			delete(m.entries, k)
		}
	}
	for len(m.entries) >= max {
		first, at := "", time.Time{}
		for k, e := range m.entries {
			if first == "" || e.expires.Before(at) {
				first, at = k, e.expires
			}
		}
		delete(m.entries, first)
	}
}

// Redis is the Cache in Redis: keys Prefix+key, each with its expiry.
// Every error but a missing key means Redis did not answer as expected,
// as for the rate limits' redisstore: it wraps breaker.ErrUnavailable and
// the go-redis error.
type Redis struct {
	Client redis.UniversalClient
	Prefix string
}

// Get implements Cache.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := r.Client.Get(ctx, r.Prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("kvcache: get: %w: %w", breaker.ErrUnavailable, err)
	}
	return v, true, nil
}

// Set implements Cache.
func (r *Redis) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := r.Client.Set(ctx, r.Prefix+key, v, ttl).Err(); err != nil {
		return fmt.Errorf("kvcache: set: %w: %w", breaker.ErrUnavailable, err)
	}
	return nil
}
