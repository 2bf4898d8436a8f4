package identity

import (
	"context"
	"sync"
	"time"
)

// DefaultCacheTTL bounds how long a cached principal may outlive a change
// that no invalidation message reached.
const DefaultCacheTTL = time.Second

// maxCacheEntries bounds the cache's memory.
const maxCacheEntries = 100_000

// Invalidations carries organization ids whose principals every replica
// must forget: fanout.Redis across replicas. Nil keeps invalidation within
// the process, enough for a single replica.
type Invalidations interface {
	Publish(ctx context.Context, channel, msg string) error
	Subscribe(ctx context.Context, channel string, fn func(msg string)) (ready <-chan struct{}, done <-chan error)
}

// invalidationChannel is the fan-out channel of organization ids.
const invalidationChannel = "identity.invalidate"

// PrincipalCache keeps authenticated principals for TTL so that a request
// does not read its key, user and role from the store every time. A change
// to who may do what in an organization (a key revoked, a role changed)
// forgets the organization's entries at once in this process and, through
// Invalidations, in every other. The zero value works, in-process only.
type PrincipalCache struct {
	TTL           time.Duration
	Invalidations Invalidations

	mu      sync.Mutex
	entries map[string]cacheEntry
	// gen counts invalidations, so that a lookup that began before one
	// cannot store what it read. (The organization is not known before the
	// lookup, and invalidations are rare, so one counter serves all.)
	gen uint64
}

type cacheEntry struct {
	p       *Principal
	expires time.Time // the entry's, not the key's
	keyExp  *time.Time
}

func (c *PrincipalCache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultCacheTTL
}

// generation returns the invalidation count, read before a lookup in the
// store.
func (c *PrincipalCache) generation() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// get returns the entry for k unless it has expired.
func (c *PrincipalCache) get(k string, now time.Time) (cacheEntry, bool) {
	if c == nil {
		return cacheEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !now.Before(e.expires) {
		return cacheEntry{}, false
	}
	return e, true
}

// put stores p under k unless an invalidation came since gen.
func (c *PrincipalCache) put(k string, gen uint64, p *Principal, keyExp *time.Time, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil {
		c.entries = map[string]cacheEntry{}
	}
	if len(c.entries) >= maxCacheEntries {
		for k, e := range c.entries {
			if !now.Before(e.expires) || len(c.entries) >= maxCacheEntries {
				delete(c.entries, k)
			}
		}
	}
	c.entries[k] = cacheEntry{p: p, expires: now.Add(c.ttl()), keyExp: keyExp}
}

// forget drops the organization's entries in this process.
func (c *PrincipalCache) forget(orgID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k, e := range c.entries {
		if e.p.OrgID == orgID {
			delete(c.entries, k)
		}
	}
}

// Invalidate forgets the organization's principals here and tells every
// other replica to. A failed publish is returned; the other replicas then
// catch up within TTL.
func (c *PrincipalCache) Invalidate(ctx context.Context, orgID string) error {
	if c == nil {
		return nil
	}
	c.forget(orgID)
	if c.Invalidations == nil {
		return nil
	}
	return c.Invalidations.Publish(ctx, invalidationChannel, orgID)
}

// Listen applies other replicas' invalidations until ctx ends; it returns
// once the subscription is in place, and its error channel reports how the
// subscription ended. Without Invalidations it does nothing.
func (c *PrincipalCache) Listen(ctx context.Context) <-chan error {
	if c.Invalidations == nil {
		done := make(chan error)
		go func() { <-ctx.Done(); done <- nil }()
		return done
	}
	ready, done := c.Invalidations.Subscribe(ctx, invalidationChannel, c.forget)
	<-ready
	return done
}
