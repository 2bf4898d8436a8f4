package identity

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/store"
)

// TestPrincipalCache: an organization's invalidation forgets its
// principals, fresh and stale, and no other organization's.
func TestPrincipalCache(t *testing.T) {
	now := time.Now()
	c := &PrincipalCache{TTL: time.Minute, StaleIfError: time.Hour}
	a := &Principal{OrgID: "a", UserID: "u1"}
	b := &Principal{OrgID: "b", UserID: "u2"}
	down := fmt.Errorf("%w", store.ErrUnavailable)
	f := func(k string, at time.Time, want *Principal) {
		t.Helper()
		e, err := c.get(cacheKey{user: k}, at, func() (cached, error) { return cached{}, down })
		if (want == nil) != (err != nil) || e.p != want {
			t.Fatalf("get(%s) got %v, %v; want %v", k, e.p, err, want)
		}
	}
	for k, p := range map[string]*Principal{"ka": a, "kb": b} {
		if _, err := c.get(cacheKey{user: k}, now, func() (cached, error) { return cached{p: p}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	f("ka", now, a)
	f("ka", now.Add(time.Minute), a) // stale while the store is down
	if err := c.Invalidate(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	f("ka", now, nil)
	f("kb", now, b) // another organization keeps its entries

	var none *PrincipalCache
	if _, err := none.get(cacheKey{user: "k"}, now, func() (cached, error) { return cached{}, down }); err != down {
		t.Fatalf("nil cache get: got %v, want the store's error", err)
	}
	if err := none.Invalidate(context.Background(), "a"); err != nil {
		t.Fatalf("nil cache Invalidate: got %v, want nil", err)
	}
}

// channel is an in-process Invalidations that, like Redis, delivers each
// message to every subscriber, its publisher included, when told to.
type channel struct {
	subs []func(string)
	sent []string
}

func (ch *channel) Publish(_ context.Context, _, msg string) error {
	ch.sent = append(ch.sent, msg)
	return nil
}

func (ch *channel) Subscribe(ctx context.Context, _ string, fn func(string)) (<-chan struct{}, <-chan error) {
	ch.subs = append(ch.subs, fn)
	ready, done := make(chan struct{}), make(chan error, 1)
	close(ready)
	go func() { <-ctx.Done(); done <- nil }()
	return ready, done
}

// deliver hands every message sent so far to every subscriber.
func (ch *channel) deliver() {
	for _, m := range ch.sent {
		for _, fn := range ch.subs {
			fn(m)
		}
	}
	ch.sent = nil
}

// TestInvalidationEcho: a replica's own invalidation, coming back from the
// channel after the replica read the organization's principals again, does
// not forget them a second time; another replica's does, and so does a
// bare organization id as replicas before origins sent it.
func TestInvalidationEcho(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Now()
	ch := &channel{}
	mine := &PrincipalCache{TTL: time.Minute, Invalidations: ch}
	other := &PrincipalCache{TTL: time.Minute, Invalidations: ch}
	mine.Listen(ctx)
	other.Listen(ctx)
	a := &Principal{OrgID: "a"}
	read := func(c *PrincipalCache) {
		t.Helper()
		if _, err := c.get(cacheKey{user: "ka"}, now, func() (cached, error) { return cached{p: a}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	f := func(c *PrincipalCache, name string, want int) {
		t.Helper()
		if got := c.entries.Len(); got != want {
			t.Fatalf("%s: got %d entries, want %d", name, got, want)
		}
	}

	read(mine)
	read(other)
	if err := mine.Invalidate(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	read(mine) // read again before the echo arrives
	ch.deliver()
	f(mine, "the publisher after its own message came back", 1)
	f(other, "another replica after the message", 0)

	read(other)
	ch.sent = append(ch.sent, "a")
	ch.deliver()
	f(mine, "after a bare organization id", 0)
	f(other, "after a bare organization id", 0)
}
