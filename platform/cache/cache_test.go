package cache

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/store"
)

var (
	errDown   = fmt.Errorf("dial: %w", store.ErrUnavailable)
	errGone   = fmt.Errorf("key: %w", store.ErrNotFound)
	errRefuse = errors.New("refused")
)

// TestCache walks one key through the rules on a clock the test moves:
// fresh within TTL, stale only on ErrUnavailable and only within
// TTL+StaleIfError, never stale once the store said anything else.
func TestCache(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	clk := clock.Clock(func() time.Time { return now })
	c := &Cache[string, string]{TTL: time.Second, StaleIfError: time.Minute}
	loads := 0
	f := func(at time.Duration, answer string, answerErr error, want string, wantErr error, wantLoads int) {
		t.Helper()
		now = start.Add(at)
		got, err := c.Get("k", clk.Now(), func() (string, error) {
			loads++
			return answer, answerErr
		})
		if got != want || err != wantErr {
			t.Fatalf("at %v: got %q, %v; want %q, %v", at, got, err, want, wantErr)
		}
		if loads != wantLoads {
			t.Fatalf("at %v: got %d loads, want %d", at, loads, wantLoads)
		}
	}
	const s, m = time.Second, time.Minute
	f(0, "v1", nil, "v1", nil, 1)                        // read from the store
	f(s-time.Microsecond, "v2", nil, "v1", nil, 1)       // fresh: the store is not asked
	f(s, "v2", nil, "v2", nil, 2)                        // expired: read again
	f(2*s, "", errDown, "v2", nil, 3)                    // store down: stale
	f(2*s+m-time.Microsecond, "", errDown, "v2", nil, 4) // the last stale moment
	f(2*s+m, "", errDown, "", errDown, 5)                // beyond the bound: the error
	f(2*s+m, "v3", nil, "v3", nil, 6)                    // back: read again
	f(3*s+m, "", errGone, "", errGone, 7)                // the store says gone...
	f(3*s+m, "", errDown, "", errDown, 8)                // ...so nothing serves stale
	f(4*s+m, "v4", nil, "v4", nil, 9)                    //
	f(5*s+m, "", errRefuse, "", errRefuse, 10)           // any answer but unavailable...
	f(5*s+m, "", errDown, "", errDown, 11)               // ...forgets the key
	f(6*s+m, "v5", nil, "v5", nil, 12)                   //
	c.Forget(func(v string) bool { return v == "v5" })   // an invalidation...
	f(6*s+m, "", errDown, "", errDown, 13)               // ...leaves nothing stale
}

// TestCacheForgetDuringLoad: a load that began before a Forget does not
// store what it read, which may be older than the change.
func TestCacheForgetDuringLoad(t *testing.T) {
	now := time.Now()
	c := &Cache[string, string]{TTL: time.Minute, StaleIfError: time.Hour}
	if _, err := c.Get("k", now, func() (string, error) {
		c.Forget(func(string) bool { return true })
		return "old", nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get("k", now, func() (string, error) { return "", errDown }); err != errDown {
		t.Fatalf("got %q, %v; want nothing cached and %v", got, err, errDown)
	}
}

// TestCacheBounded: a full cache makes room, first from entries too old
// to serve even stale.
func TestCacheBounded(t *testing.T) {
	start := time.Now()
	c := &Cache[string, int]{TTL: time.Second, StaleIfError: time.Second, Max: 3}
	put := func(k int, at time.Time) {
		t.Helper()
		if _, err := c.Get(fmt.Sprint(k), at, func() (int, error) { return k, nil }); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 10 {
		put(k, start)
		if n := c.Len(); n > 3 {
			t.Fatalf("got %d entries, want at most 3", n)
		}
	}
	later := start.Add(time.Hour)
	put(100, later)
	put(101, later)
	for _, k := range []string{"100", "101"} { // the old entries went first
		if v, err := c.Get(k, later, func() (int, error) { return 0, errDown }); err != nil {
			t.Fatalf("Get(%s): got %d, %v; want it cached", k, v, err)
		}
	}
}

// TestCacheNil: a nil cache reads the store every time.
func TestCacheNil(t *testing.T) {
	var c *Cache[string, string]
	for range 2 {
		if _, err := c.Get("k", time.Now(), func() (string, error) { return "", errDown }); err != errDown {
			t.Fatalf("got %v, want %v", err, errDown)
		}
	}
	c.Forget(func(string) bool { return true })
}
