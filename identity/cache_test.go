package identity

import (
	"context"
	"testing"
	"time"
)

func TestPrincipalCache(t *testing.T) {
	now := time.Now()
	c := &PrincipalCache{TTL: time.Minute}
	a := &Principal{OrgID: "a", UserID: "u1"}
	b := &Principal{OrgID: "b", UserID: "u2"}
	f := func(k string, at time.Time, want *Principal) {
		t.Helper()
		e, ok := c.get(k, at)
		if (want == nil) == ok || (ok && e.p != want) {
			t.Fatalf("get(%s) got %v %v, want %v", k, e.p, ok, want)
		}
	}
	c.put("ka", c.generation(), a, nil, now)
	c.put("kb", c.generation(), b, nil, now)
	f("ka", now, a)
	f("ka", now.Add(time.Minute), nil) // expired
	if err := c.Invalidate(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	f("ka", now, nil)
	f("kb", now, b) // another organization keeps its entries

	// A lookup that began before an invalidation cannot store its result.
	gen := c.generation()
	_ = c.Invalidate(context.Background(), "b")
	c.put("ka", gen, a, nil, now)
	f("ka", now, nil)

	var none *PrincipalCache
	none.put("k", none.generation(), a, nil, now)
	if _, ok := none.get("k", now); ok {
		t.Fatalf("got an entry from a nil cache, want none")
	}
	if err := none.Invalidate(context.Background(), "a"); err != nil {
		t.Fatalf("nil cache Invalidate: got %v, want nil", err)
	}
}
