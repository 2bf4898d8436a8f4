package ratelimittest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

func testIncr(t *testing.T, s ratelimit.Store) {
	for want := int64(1); want <= 3; want++ {
		if got := incr(t, s, "k", time.Minute); got != want {
			t.Fatalf("Incr #%d: got %d, want %d", want, got, want)
		}
	}
	if got := get(t, s, "k"); got != 3 {
		t.Fatalf("Get after 3 Incr: got %d, want 3", got)
	}
}

// testIncrExpiry checks that a counter expires ttl after its first Incr and
// that later Incr calls do not move its expiry.
func testIncrExpiry(t *testing.T, s ratelimit.Store) {
	const ttl = 300 * time.Millisecond
	for attempt := 1; ; attempt++ {
		key := fmt.Sprintf("exp%d", attempt)
		incr(t, s, key, ttl)
		if got := incr(t, s, key, time.Hour); got != 2 {
			// More than ttl passed between the two calls: the key expired
			// and restarted with an hour to live. Try again on a new key.
			if attempt < 5 {
				t.Logf("second Incr: got %d, want 2; machine too slow, retrying", got)
				continue
			}
			t.Fatalf("second Incr: got %d, want 2", got)
		}
		eventually(t, "counter expires ttl after its first Incr", func() bool { return get(t, s, key) == 0 })
		if got := incr(t, s, key, time.Minute); got != 1 {
			t.Fatalf("Incr after expiry: got %d, want 1", got)
		}
		return
	}
}

func testMissing(t *testing.T, s ratelimit.Store) {
	if got := get(t, s, "missing"); got != 0 {
		t.Fatalf("Get(missing): got %d, want 0", got)
	}
	if got := blocked(t, s, "missing"); got != 0 {
		t.Fatalf("Blocked(missing): got %v, want 0", got)
	}
	if err := s.Delete(t.Context(), "missing"); err != nil {
		t.Fatalf("Delete(missing): got %v, want nil", err)
	}
	if err := s.Delete(t.Context()); err != nil {
		t.Fatalf("Delete(): got %v, want nil", err)
	}
}

func testBlockKeepsLonger(t *testing.T, s ratelimit.Store) {
	f := func(key string, ds []time.Duration, min, max time.Duration) {
		t.Helper()
		for _, d := range ds {
			block(t, s, key, d)
		}
		if got := blocked(t, s, key); got < min || got > max {
			t.Fatalf("Blocked after Block %v: got %v, want in [%v, %v]", ds, got, min, max)
		}
	}
	f("long-then-short", []time.Duration{time.Hour, time.Second}, 59*time.Minute, time.Hour)
	f("short-then-long", []time.Duration{time.Second, time.Hour}, 59*time.Minute, time.Hour)
	f("zero", []time.Duration{0, -time.Second}, 0, 0)
	f("zero-keeps", []time.Duration{time.Hour, 0}, 59*time.Minute, time.Hour)
}

// testBlockExpiry checks that Blocked decreases and reaches 0.
func testBlockExpiry(t *testing.T, s ratelimit.Store) {
	block(t, s, "dec", 5*time.Second)
	b1 := blocked(t, s, "dec")
	time.Sleep(50 * time.Millisecond)
	b2 := blocked(t, s, "dec")
	if b1 <= 0 || b1 > 5*time.Second {
		t.Fatalf("Blocked right after Block 5s: got %v, want in (0, 5s]", b1)
	}
	if b2 <= 0 || b2 >= b1 {
		t.Fatalf("Blocked 50ms later: got %v, want in (0, %v)", b2, b1)
	}

	block(t, s, "end", 200*time.Millisecond)
	eventually(t, "block of 200ms ends", func() bool { return blocked(t, s, "end") == 0 })
}

func testCounterAndBlockIndependent(t *testing.T, s ratelimit.Store) {
	incr(t, s, "k", time.Minute)
	if got := blocked(t, s, "k"); got != 0 {
		t.Fatalf("Blocked after Incr: got %v, want 0", got)
	}
	block(t, s, "k", time.Hour)
	if got := get(t, s, "k"); got != 1 {
		t.Fatalf("Get after Block: got %d, want 1", got)
	}
	if got := incr(t, s, "k", time.Minute); got != 2 {
		t.Fatalf("Incr after Block: got %d, want 2", got)
	}
	if got := blocked(t, s, "k"); got < 59*time.Minute {
		t.Fatalf("Blocked after Incr: got %v, want about 1h", got)
	}
}

func testDelete(t *testing.T, s ratelimit.Store) {
	incr(t, s, "a", time.Minute)
	incr(t, s, "b", time.Minute)
	incr(t, s, "keep", time.Minute)
	block(t, s, "a", time.Hour)
	block(t, s, "keep", time.Hour)
	if err := s.Delete(t.Context(), "a", "b", "missing"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, k := range []string{"a", "b"} {
		if got := get(t, s, k); got != 0 {
			t.Errorf("Get(%q) after Delete: got %d, want 0", k, got)
		}
		if got := blocked(t, s, k); got != 0 {
			t.Errorf("Blocked(%q) after Delete: got %v, want 0", k, got)
		}
	}
	if got := get(t, s, "keep"); got != 1 {
		t.Errorf("Get(keep): got %d, want 1", got)
	}
	if got := blocked(t, s, "keep"); got == 0 {
		t.Errorf("Blocked(keep): got 0, want about 1h")
	}
	if got := incr(t, s, "a", time.Minute); got != 1 {
		t.Errorf("Incr after Delete: got %d, want 1", got)
	}
}

// testConcurrentIncr checks that concurrent Incr calls on one key each get a
// distinct value and that none is lost.
func testConcurrentIncr(t *testing.T, s ratelimit.Store) {
	const goroutines, each = 20, 50
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = make(map[int64]bool)
	)
	for range goroutines {
		wg.Go(func() {
			for range each {
				n, err := s.Incr(t.Context(), "shared", time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[n] {
					t.Errorf("Incr returned %d twice", n)
				}
				seen[n] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got := get(t, s, "shared"); got != goroutines*each {
		t.Fatalf("Get after %d×%d Incr: got %d, want %d", goroutines, each, got, goroutines*each)
	}
}

func testKeyIsolation(t *testing.T, s ratelimit.Store) {
	keys := []string{"a", "A", "a:b", "a:", ":a", "ab", "", "a b", "ä/ü\x00", "c:a", "b:a"}
	for i, k := range keys {
		for range i + 1 {
			incr(t, s, k, time.Minute)
		}
	}
	block(t, s, "a", time.Hour)
	for i, k := range keys {
		if got, want := get(t, s, k), int64(i+1); got != want {
			t.Errorf("Get(%q): got %d, want %d", k, got, want)
		}
		if got := blocked(t, s, k); k != "a" && got != 0 {
			t.Errorf("Blocked(%q): got %v, want 0", k, got)
		}
	}
}
