// Package cache keeps what a request read from a store for a short time,
// so that the next requests need not read it again, and serves it a
// bounded time longer while the store is unavailable (stale-if-error, as
// RFC 5861 names it for HTTP caches). Only an answer that the store could
// not give makes a stale value serve: a record the store says is missing,
// revoked or refused is forgotten at once.
//
// It imports the store errors alone (to tell an outage); it must not import
// a store or an API package.
package cache

import (
	"errors"
	"sync"
	"time"

	"github.com/vigilhq/vigil/store"
)

// DefaultMaxEntries bounds a Cache whose Max is zero.
const DefaultMaxEntries = 100_000

// Cache maps keys to values read from a store. It is safe for concurrent
// use; the zero value keeps nothing fresh and nothing stale, and a nil
// *Cache reads the store every time. A key of its own comparable type (a
// struct of the parts that name a value) lets a caller look up without
// building a key string for every request.
type Cache[K comparable, V any] struct {
	// TTL is how long a value read from the store is served without
	// asking the store again.
	TTL time.Duration
	// StaleIfError is how much longer than TTL a value may be served while
	// the store answers store.ErrUnavailable; zero serves none stale.
	StaleIfError time.Duration
	// Max bounds the number of entries; zero means DefaultMaxEntries.
	Max int

	mu      sync.Mutex
	entries map[K]entry[V]
	// gen counts Forget calls, so that a load that began before one cannot
	// store what it read.
	gen uint64
}

type entry[V any] struct {
	v    V
	read time.Time // when the store answered it
}

// Get returns k's value as of now: the cached one when it was read within
// TTL, else load's, which is kept. When load fails with an error wrapping
// store.ErrUnavailable, a value read within TTL+StaleIfError is returned
// instead of the error; any other error of load forgets k and is returned.
func (c *Cache[K, V]) Get(k K, now time.Time, load func() (V, error)) (V, error) {
	if c == nil {
		return load()
	}
	e, ok := c.lookup(k)
	if ok && now.Sub(e.read) < c.TTL {
		return e.v, nil
	}
	gen := c.generation()
	v, err := load()
	switch {
	case err == nil:
		c.put(k, gen, v, now)
		return v, nil
	case errors.Is(err, store.ErrUnavailable):
		// Read again: a Forget since the first look must win.
		if e, ok := c.lookup(k); ok && now.Sub(e.read) < c.TTL+c.StaleIfError {
			return e.v, nil
		}
		return v, err
	}
	c.delete(k)
	return v, err
}

func (c *Cache[K, V]) lookup(k K) (entry[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	return e, ok
}

func (c *Cache[K, V]) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps v under k unless a Forget came since gen. A full cache drops
// the entries too old to serve even stale, then others, to make room.
func (c *Cache[K, V]) put(k K, gen uint64, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil {
		c.entries = map[K]entry[V]{}
	}
	if max := c.max(); len(c.entries) >= max {
		for k, e := range c.entries {
			if now.Sub(e.read) >= c.TTL+c.StaleIfError {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < max {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[k] = entry[V]{v: v, read: now}
}

func (c *Cache[K, V]) max() int {
	if c.Max > 0 {
		return c.Max
	}
	return DefaultMaxEntries
}

func (c *Cache[K, V]) delete(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, k)
}

// Forget drops every entry whose value matches, fresh or stale, and keeps
// the loads under way from storing what they read.
func (c *Cache[K, V]) Forget(match func(V) bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k, e := range c.entries {
		if match(e.v) {
			delete(c.entries, k)
		}
	}
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
