package ratelimittest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// failer returns a function that records one failure per want for subject
// and checks the wait each imposes.
func failer(t *testing.T, l *ratelimit.Lockout) func(subject string, want ...time.Duration) {
	return func(subject string, want ...time.Duration) {
		t.Helper()
		for i, w := range want {
			got, err := l.Fail(t.Context(), subject)
			if err != nil {
				t.Fatalf("Fail #%d(%q): %v", i+1, subject, err)
			}
			if got != w {
				t.Fatalf("Fail #%d(%q): got %v, want %v", i+1, subject, got, w)
			}
		}
	}
}

// check returns l.Check(subject), failing t on error.
func check(t *testing.T, l *ratelimit.Lockout, subject string) time.Duration {
	t.Helper()
	d, err := l.Check(t.Context(), subject)
	if err != nil {
		t.Fatalf("Check(%q): %v", subject, err)
	}
	return d
}

func testLockoutDefaults(t *testing.T, s ratelimit.Store) {
	l := &ratelimit.Lockout{Store: s}
	failer(t, l)("mallory",
		0, 0, 0, // FreeAttempts 3
		time.Second, 2*time.Second, 4*time.Second, 8*time.Second, 16*time.Second, 32*time.Second,
		15*time.Minute, 15*time.Minute) // MaxFailures 10: MaxDelay
	if got := check(t, l, "mallory"); got <= 14*time.Minute || got > 15*time.Minute {
		t.Fatalf("Check after lockout: got %v, want about 15m", got)
	}
}

func testLockoutDoublingCapped(t *testing.T, s ratelimit.Store) {
	l := &ratelimit.Lockout{Store: s, FreeAttempts: 2, BaseDelay: time.Second, MaxDelay: 5 * time.Second, MaxFailures: 100}
	failer(t, l)("m", 0, 0, time.Second, 2*time.Second, 4*time.Second, 5*time.Second, 5*time.Second)
}

func testLockoutMaxFailures(t *testing.T, s ratelimit.Store) {
	l := &ratelimit.Lockout{Store: s, FreeAttempts: 1, BaseDelay: time.Second, MaxDelay: time.Hour, MaxFailures: 4}
	failer(t, l)("m", 0, time.Second, 2*time.Second, time.Hour, time.Hour)
	if got := check(t, l, "m"); got <= 59*time.Minute {
		t.Fatalf("Check after MaxFailures: got %v, want about 1h", got)
	}
	// MaxFailures wins over FreeAttempts.
	l = &ratelimit.Lockout{Store: s, Name: "strict", FreeAttempts: 5, MaxFailures: 2}
	failer(t, l)("m", 0, ratelimit.DefaultMaxDelay)
}

func testLockoutCheck(t *testing.T, s ratelimit.Store) {
	l := &ratelimit.Lockout{Store: s, FreeAttempts: 1, BaseDelay: time.Minute}
	if got := check(t, l, "m"); got != 0 {
		t.Fatalf("Check before any failure: got %v, want 0", got)
	}
	failer(t, l)("m", 0)
	if got := check(t, l, "m"); got != 0 {
		t.Fatalf("Check after a free failure: got %v, want 0", got)
	}
	failer(t, l)("m", time.Minute)
	if got := check(t, l, "m"); got <= 0 || got > time.Minute {
		t.Fatalf("Check after a 1m delay: got %v, want in (0, 1m]", got)
	}
}

func testLockoutSucceedClears(t *testing.T, s ratelimit.Store) {
	l := &ratelimit.Lockout{Store: s, FreeAttempts: 2, MaxFailures: 3}
	fail := failer(t, l)
	fail("m", 0, 0, ratelimit.DefaultMaxDelay)
	if err := l.Succeed(t.Context(), "m"); err != nil {
		t.Fatalf("Succeed: %v", err)
	}
	if got := check(t, l, "m"); got != 0 {
		t.Fatalf("Check after Succeed: got %v, want 0", got)
	}
	fail("m", 0, 0, ratelimit.DefaultMaxDelay) // free attempts again
}

// testLockoutIsolation checks that subjects and Lockout names do not share
// failures.
func testLockoutIsolation(t *testing.T, s ratelimit.Store) {
	password := &ratelimit.Lockout{Store: s, Name: "password", FreeAttempts: 1}
	totp := &ratelimit.Lockout{Store: s, Name: "totp", FreeAttempts: 1}
	failer(t, password)("a", 0, time.Second)
	failer(t, password)("b", 0, time.Second)
	failer(t, totp)("a", 0, time.Second)
	if got := check(t, password, "c"); got != 0 {
		t.Fatalf("Check of another subject: got %v, want 0", got)
	}
}

// testLockoutWindow checks that failures older than Window are forgotten.
func testLockoutWindow(t *testing.T, s ratelimit.Store) {
	const window = 300 * time.Millisecond
	l := &ratelimit.Lockout{Store: s, FreeAttempts: 2, Window: window}
	fail := failer(t, l)
	fail("m", 0, 0)
	time.Sleep(window + 100*time.Millisecond)
	fail("m", 0, 0) // the count started again
}

// testLockoutConcurrentFail checks that concurrent failures are all counted.
func testLockoutConcurrentFail(t *testing.T, s ratelimit.Store) {
	const free, attempts = 3, 20
	l := &ratelimit.Lockout{Store: s, FreeAttempts: free, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	var (
		wg      sync.WaitGroup
		gotFree atomic.Int64
	)
	for range attempts {
		wg.Go(func() {
			d, err := l.Fail(t.Context(), "m")
			if err != nil {
				t.Error(err)
				return
			}
			if d == 0 {
				gotFree.Add(1)
			}
		})
	}
	wg.Wait()
	if got := gotFree.Load(); got != free {
		t.Fatalf("free failures among %d concurrent: got %d, want %d", attempts, got, free)
	}
}
