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
		e, err := c.get(k, at, func() (cached, error) { return cached{}, down })
		if (want == nil) != (err != nil) || e.p != want {
			t.Fatalf("get(%s) got %v, %v; want %v", k, e.p, err, want)
		}
	}
	for k, p := range map[string]*Principal{"ka": a, "kb": b} {
		if _, err := c.get(k, now, func() (cached, error) { return cached{p: p}, nil }); err != nil {
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
	if _, err := none.get("k", now, func() (cached, error) { return cached{}, down }); err != down {
		t.Fatalf("nil cache get: got %v, want the store's error", err)
	}
	if err := none.Invalidate(context.Background(), "a"); err != nil {
		t.Fatalf("nil cache Invalidate: got %v, want nil", err)
	}
}
