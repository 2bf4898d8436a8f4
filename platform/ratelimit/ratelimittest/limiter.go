package ratelimittest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// base is the start of a fixed window for every Window dividing an hour.
var base = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// allower returns a function that asks l to allow a request by subject under
// r at time at, failing t on error.
func allower(t *testing.T, l *ratelimit.Limiter) func(r ratelimit.Rule, subject string, at time.Time) ratelimit.Decision {
	return func(r ratelimit.Rule, subject string, at time.Time) ratelimit.Decision {
		t.Helper()
		l.Now = func() time.Time { return at }
		d, err := l.Allow(t.Context(), r, subject)
		if err != nil {
			t.Fatalf("Allow(%q, %q) at %v: %v", r.Name, subject, at, err)
		}
		return d
	}
}

// testLimitPlusOne checks that request Limit+1 in the window is rejected,
// that RetryAfter is exact, and the Decision fields on the way.
func testLimitPlusOne(t *testing.T, s ratelimit.Store) {
	allow := allower(t, &ratelimit.Limiter{Store: s})
	r := ratelimit.Rule{Name: "standard", Limit: 5, Window: time.Hour}
	now := base.Add(10 * time.Minute)
	for i := int64(1); i <= r.Limit; i++ {
		d := allow(r, "alice", now)
		want := ratelimit.Decision{Allowed: true, Limit: 5, Remaining: 5 - i, Reset: base.Add(2 * time.Hour)}
		if !equal(d, want) {
			t.Fatalf("request %d: got %+v, want %+v", i, d, want)
		}
	}
	d := allow(r, "alice", now)
	if d.Allowed || d.Remaining != 0 || d.Limit != 5 || d.RetryAfter <= 0 || !d.Reset.After(now) {
		t.Fatalf("request 6: got %+v, want rejected with Remaining 0, Limit 5, RetryAfter > 0, Reset after now", d)
	}
	if got := allow(r, "alice", now.Add(d.RetryAfter-1)); got.Allowed {
		t.Fatalf("request RetryAfter-1ns later: got allowed, want rejected")
	}
	if got := allow(r, "alice", now.Add(d.RetryAfter)); !got.Allowed {
		t.Fatalf("request RetryAfter later: got rejected (%+v), want allowed", got)
	}
}

// testRejectedDoesNotConsume checks that rejected requests are not counted:
// they would otherwise weigh in the next window.
func testRejectedDoesNotConsume(t *testing.T, s ratelimit.Store) {
	allow := allower(t, &ratelimit.Limiter{Store: s})
	r := ratelimit.Rule{Name: "r", Limit: 5, Window: time.Minute}
	for i := range 25 {
		if d := allow(r, "bob", base.Add(30*time.Second)); d.Allowed != (i < 5) {
			t.Fatalf("request %d: got Allowed %v, want %v", i+1, d.Allowed, i < 5)
		}
	}
	// Half-way through the next window the 5 allowed requests weigh
	// ceil(5*0.5) = 3; had the 20 rejected ones counted, 13.
	d := allow(r, "bob", base.Add(90*time.Second))
	if !d.Allowed || d.Remaining != 1 {
		t.Fatalf("next window: got %+v, want allowed with Remaining 1", d)
	}
}

func testSubjectsAndRules(t *testing.T, s ratelimit.Store) {
	allow := allower(t, &ratelimit.Limiter{Store: s})
	a := ratelimit.Rule{Name: "a", Limit: 2, Window: time.Hour}
	b := ratelimit.Rule{Name: "b", Limit: 2, Window: time.Hour}
	f := func(r ratelimit.Rule, subject string, want bool) {
		t.Helper()
		if got := allow(r, subject, base).Allowed; got != want {
			t.Fatalf("Allow(%q, %q): got Allowed %v, want %v", r.Name, subject, got, want)
		}
	}
	f(a, "x", true)
	f(a, "x", true)
	f(a, "x", false)
	f(a, "y", true) // other subject, same rule
	f(b, "x", true) // other rule, same subject
	f(b, "x", true)
	f(b, "x", false)
	// Names and subjects with colons must not collide.
	one := func(name string) ratelimit.Rule { return ratelimit.Rule{Name: name, Limit: 1, Window: time.Hour} }
	f(one("p:q"), "r", true)
	f(one("p"), "q:r", true)
	f(one("p:q"), "r", false)
	f(one("p"), "q:r", false)
}

// testReplicas checks that two Limiters on one Store share quota.
func testReplicas(t *testing.T, s ratelimit.Store) {
	allow1 := allower(t, &ratelimit.Limiter{Store: s})
	allow2 := allower(t, &ratelimit.Limiter{Store: s})
	r := ratelimit.Rule{Name: "shared", Limit: 4, Window: time.Hour}
	for i := range 3 {
		d1, d2 := allow1(r, "carol", base), allow2(r, "carol", base)
		want := i < 2
		if d1.Allowed != want || d2.Allowed != want {
			t.Fatalf("round %d: got Allowed %v and %v, want %v", i+1, d1.Allowed, d2.Allowed, want)
		}
	}
}

// testConcurrentReplicas checks that concurrent requests through two
// Limiters never exceed the limit, nor fall short of it.
func testConcurrentReplicas(t *testing.T, s ratelimit.Store) {
	const limit, requests = 25, 60
	now := func() time.Time { return base.Add(time.Minute) }
	limiters := []*ratelimit.Limiter{{Store: s, Now: now}, {Store: s, Now: now}}
	r := ratelimit.Rule{Name: "burst", Limit: limit, Window: time.Hour}
	var (
		wg      sync.WaitGroup
		allowed atomic.Int64
	)
	for i := range requests {
		wg.Go(func() {
			d, err := limiters[i%2].Allow(t.Context(), r, "dave")
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Fatalf("allowed of %d concurrent requests: got %d, want %d", requests, got, limit)
	}
}

// testSlidingWindow checks the weighting of the previous window and the
// RetryAfter it implies.
func testSlidingWindow(t *testing.T, s ratelimit.Store) {
	allow := allower(t, &ratelimit.Limiter{Store: s})
	r := ratelimit.Rule{Name: "slide", Limit: 10, Window: time.Minute}
	f := func(at time.Duration, want ratelimit.Decision) {
		t.Helper()
		want.Limit = r.Limit
		if got := allow(r, "erin", base.Add(at)); !equal(got, want) {
			t.Fatalf("Allow at base+%v: got %+v, want %+v", at, got, want)
		}
	}
	ok := func(remaining int64, reset time.Duration) ratelimit.Decision {
		return ratelimit.Decision{Allowed: true, Remaining: remaining, Reset: base.Add(reset)}
	}
	rejected := func(reset, retryAfter time.Duration) ratelimit.Decision {
		return ratelimit.Decision{Reset: base.Add(reset), RetryAfter: retryAfter}
	}

	// Window [0, 1m): all 10 at 30s.
	for i := int64(9); i >= 0; i-- {
		f(30*time.Second, ok(i, 2*time.Minute))
	}
	// The 11th fits only in the next window, once the 10 weigh at most 9:
	// 10*(60s-e)/60s <= 9, e >= 6s.
	f(30*time.Second, rejected(2*time.Minute, 36*time.Second))

	// At 1m15s the previous 10 weigh ceil(10*45/60) = 8: 2 more fit.
	f(75*time.Second, ok(1, 3*time.Minute))
	f(75*time.Second, ok(0, 3*time.Minute))
	// The next fits once the 10 weigh 7: 10*(60s-e)/60s <= 7, e >= 18s.
	f(75*time.Second, rejected(3*time.Minute, 3*time.Second))
	f(78*time.Second-1, rejected(3*time.Minute, 1))
	f(78*time.Second, ok(0, 3*time.Minute))

	// At 2m30s the 3 of [1m, 2m) weigh ceil(1.5) = 2.
	f(150*time.Second, ok(7, 4*time.Minute))
	// Two windows later nothing weighs any more.
	f(270*time.Second, ok(9, 6*time.Minute))
}

// testNoBurstAtEdge checks that a full window just before an edge still
// counts just after it, unlike with fixed windows.
func testNoBurstAtEdge(t *testing.T, s ratelimit.Store) {
	allow := allower(t, &ratelimit.Limiter{Store: s})
	r := ratelimit.Rule{Name: "edge", Limit: 10, Window: time.Minute}
	for i := range 10 {
		if d := allow(r, "frank", base.Add(time.Minute-1)); !d.Allowed {
			t.Fatalf("request %d before the edge: got rejected, want allowed", i+1)
		}
	}
	// The 10 weigh ceil(10*(60s-e)/60s): 10 until e = 6s.
	for _, at := range []time.Duration{0, time.Second, 6*time.Second - 1} {
		if d := allow(r, "frank", base.Add(time.Minute+at)); d.Allowed {
			t.Fatalf("request at base+1m+%v: got allowed, want rejected", at)
		}
	}
	if d := allow(r, "frank", base.Add(time.Minute+6*time.Second)); !d.Allowed {
		t.Fatalf("request at base+1m6s: got rejected, want allowed")
	}
}

// equal reports whether a and b are the same Decision, whatever the Location
// of their Reset.
func equal(a, b ratelimit.Decision) bool {
	return a.Reset.Equal(b.Reset) && a.Allowed == b.Allowed && a.Limit == b.Limit &&
		a.Remaining == b.Remaining && a.RetryAfter == b.RetryAfter
}
