package identity

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/cache"
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
// Invalidations, in every other.
//
// While the store is unavailable, a principal read within TTL+StaleIfError
// still authenticates, so that ingest from known keys goes on through an
// outage of the transactional store; a key or user the store has not read
// in that window answers 503, since the store cannot say. A key the store
// answered missing or revoked is forgotten at once and never served stale.
// The zero value works, in-process only, without stale use.
type PrincipalCache struct {
	TTL time.Duration
	// StaleIfError is how much longer than TTL a principal may serve while
	// the store is unavailable; zero serves none stale.
	StaleIfError  time.Duration
	Invalidations Invalidations

	once    sync.Once
	entries cache.Cache[cacheKey, cached]
	// origin tells this cache's invalidations from other replicas' on the
	// channel, which delivers them to their publisher too.
	origin string
}

// cacheKey names a cached principal: an API key's by the key's digest, a
// login token's by its organization and user. A struct, so that a request
// looks its principal up without building a key string.
type cacheKey struct {
	digest    [sha256.Size]byte
	org, user string
}

// cached is a principal with its key's expiry, which a cached entry must
// still honour.
type cached struct {
	p      *Principal
	keyExp *time.Time
}

func (c *PrincipalCache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultCacheTTL
}

// get returns k's principal: from the cache, or from load, with the
// stale-if-error rule above. A nil cache always loads.
func (c *PrincipalCache) get(k cacheKey, now time.Time, load func() (cached, error)) (cached, error) {
	if c == nil {
		return load()
	}
	c.init()
	return c.entries.Get(k, now, load)
}

func (c *PrincipalCache) init() {
	c.once.Do(func() {
		c.entries.TTL, c.entries.StaleIfError, c.entries.Max = c.ttl(), c.StaleIfError, maxCacheEntries
		c.origin = uuid.NewString()
	})
}

// forget drops the organization's entries in this process.
func (c *PrincipalCache) forget(orgID string) {
	c.entries.Forget(func(e cached) bool { return e.p.OrgID == orgID })
}

// Invalidate forgets the organization's principals here and tells every
// other replica to. A failed publish is returned; the other replicas then
// catch up within TTL.
func (c *PrincipalCache) Invalidate(ctx context.Context, orgID string) error {
	if c == nil {
		return nil
	}
	c.init()
	c.forget(orgID)
	if c.Invalidations == nil {
		return nil
	}
	return c.Invalidations.Publish(ctx, invalidationChannel, c.origin+" "+orgID)
}

// received applies an invalidation message: "origin orgID", or a bare
// orgID as replicas before origins sent it. This cache's own messages are
// skipped: it forgot when it published, and forgetting again when the
// message comes back, at a moment the channel chooses, would drop what
// was read since (and, in a store outage, what stale-if-error serves).
func (c *PrincipalCache) received(msg string) {
	origin, orgID, ok := strings.Cut(msg, " ")
	if !ok {
		orgID = msg
	} else if origin == c.origin {
		return
	}
	c.forget(orgID)
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
	c.init()
	ready, done := c.Invalidations.Subscribe(ctx, invalidationChannel, c.received)
	<-ready
	return done
}
