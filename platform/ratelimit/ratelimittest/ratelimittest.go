// Package ratelimittest is the contract suite every ratelimit.Store must
// pass, together with the behaviour of ratelimit.Limiter and
// ratelimit.Lockout running on that Store.
//
// It imports ratelimit alone.
package ratelimittest

import (
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// Run runs the suite. newStore returns an empty Store for one subtest; it may
// register cleanup with t and skip t when its backend is unavailable. Stores
// returned for different subtests must not share keys, as subtests run in
// parallel.
//
// Timing checks only use lower bounds (a key has expired some time after its
// TTL), polling for up to pollTimeout, so the suite holds on a loaded machine.
func Run(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		f    func(t *testing.T, s ratelimit.Store)
	}{
		{"Store/Incr", testIncr},
		{"Store/IncrExpiry", testIncrExpiry},
		{"Store/Missing", testMissing},
		{"Store/BlockKeepsLonger", testBlockKeepsLonger},
		{"Store/BlockExpiry", testBlockExpiry},
		{"Store/CounterAndBlockIndependent", testCounterAndBlockIndependent},
		{"Store/Delete", testDelete},
		{"Store/ConcurrentIncr", testConcurrentIncr},
		{"Store/KeyIsolation", testKeyIsolation},
		{"Limiter/LimitPlusOne", testLimitPlusOne},
		{"Limiter/RejectedDoesNotConsume", testRejectedDoesNotConsume},
		{"Limiter/SubjectsAndRules", testSubjectsAndRules},
		{"Limiter/Replicas", testReplicas},
		{"Limiter/ConcurrentReplicas", testConcurrentReplicas},
		{"Limiter/SlidingWindow", testSlidingWindow},
		{"Limiter/NoBurstAtEdge", testNoBurstAtEdge},
		{"Lockout/Defaults", testLockoutDefaults},
		{"Lockout/DoublingCapped", testLockoutDoublingCapped},
		{"Lockout/MaxFailures", testLockoutMaxFailures},
		{"Lockout/Check", testLockoutCheck},
		{"Lockout/SucceedClears", testLockoutSucceedClears},
		{"Lockout/Isolation", testLockoutIsolation},
		{"Lockout/Window", testLockoutWindow},
		{"Lockout/ConcurrentFail", testLockoutConcurrentFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t, newStore(t))
		})
	}
}

// pollTimeout bounds how long the suite waits for something to expire.
const pollTimeout = 10 * time.Second

// eventually fails t unless cond returns true within pollTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v", what, pollTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get returns s.Get(key), failing t on error.
func get(t *testing.T, s ratelimit.Store, key string) int64 {
	t.Helper()
	n, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return n
}

// incr returns s.Incr(key, ttl), failing t on error.
func incr(t *testing.T, s ratelimit.Store, key string, ttl time.Duration) int64 {
	t.Helper()
	n, err := s.Incr(t.Context(), key, ttl)
	if err != nil {
		t.Fatalf("Incr(%q, %v): %v", key, ttl, err)
	}
	return n
}

// block calls s.Block(key, d), failing t on error.
func block(t *testing.T, s ratelimit.Store, key string, d time.Duration) {
	t.Helper()
	if err := s.Block(t.Context(), key, d); err != nil {
		t.Fatalf("Block(%q, %v): %v", key, d, err)
	}
}

// blocked returns s.Blocked(key), failing t on error.
func blocked(t *testing.T, s ratelimit.Store, key string) time.Duration {
	t.Helper()
	d, err := s.Blocked(t.Context(), key)
	if err != nil {
		t.Fatalf("Blocked(%q): %v", key, err)
	}
	return d
}
