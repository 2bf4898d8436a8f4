package ratelimit

import (
	"context"
	"math/big"
	"testing"
	"time"
)

func TestWeigh(t *testing.T) {
	f := func(n int64, window, elapsed time.Duration) {
		t.Helper()
		// ceil(n * (window-elapsed) / window), in exact arithmetic.
		want := new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(window-elapsed)))
		want.Add(want, big.NewInt(int64(window)-1))
		want.Div(want, big.NewInt(int64(window)))
		if elapsed >= window || n <= 0 {
			want.SetInt64(0)
		}
		if got := weigh(n, window, elapsed); got != want.Int64() {
			t.Fatalf("weigh(%d, %v, %v): got %d, want %d", n, window, elapsed, got, want)
		}
	}
	f(10, time.Minute, 0)
	f(10, time.Minute, 15*time.Second)
	f(10, time.Minute, 18*time.Second)
	f(10, time.Minute, 18*time.Second+1)
	f(10, time.Minute, time.Minute)
	f(10, time.Minute, 2*time.Minute)
	f(0, time.Minute, 0)
	f(1<<40, 24*time.Hour, time.Nanosecond) // n*window overflows int64
	f(1<<62, 365*24*time.Hour, time.Hour)
}

func TestFloorDiv(t *testing.T) {
	f := func(a, b, want int64) {
		t.Helper()
		if got := floorDiv(a, b); got != want {
			t.Fatalf("floorDiv(%d, %d): got %d, want %d", a, b, got, want)
		}
	}
	f(7, 2, 3)
	f(6, 2, 3)
	f(0, 2, 0)
	f(-1, 2, -1)
	f(-2, 2, -1)
	f(-3, 2, -2)
}

func TestDelay(t *testing.T) {
	f := func(l Lockout, n int64, want time.Duration) {
		t.Helper()
		if got := l.delay(n); got != want {
			t.Fatalf("%+v.delay(%d): got %v, want %v", l, n, got, want)
		}
	}
	f(Lockout{}, 3, 0)
	f(Lockout{}, 4, time.Second)
	f(Lockout{}, 9, 32*time.Second)
	f(Lockout{}, 10, DefaultMaxDelay)
	f(Lockout{FreeAttempts: -1}, 1, time.Second)
	f(Lockout{BaseDelay: time.Hour}, 4, DefaultMaxDelay) // BaseDelay above MaxDelay
	f(Lockout{MaxFailures: 1 << 30}, 1000, DefaultMaxDelay)
	f(Lockout{MaxFailures: 1 << 30, MaxDelay: 1 << 62}, 100, 1<<62) // no overflow
}

// TestWindowKeys: a key names its rule, prefix, subject and window; a
// Limiter makes each window's keys once, so that Allow on a Memory
// allocates nothing for the requests after a window's first.
func TestWindowKeys(t *testing.T) {
	if got, want := windowKey("r", "s:", "1", -2), "rl:{1:r:s:1}:-2"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	l := &Limiter{Store: &Memory{}, Prefix: "org:"}
	f := func(idx int64) {
		t.Helper()
		prev, cur := l.windowKeys("standard", "o1", idx)
		if want := windowKey("standard", "org:", "o1", idx-1); prev != want {
			t.Errorf("window %d: got previous key %q, want %q", idx, prev, want)
		}
		if want := windowKey("standard", "org:", "o1", idx); cur != want {
			t.Errorf("window %d: got key %q, want %q", idx, cur, want)
		}
	}
	f(7)
	f(7)
	f(8) // the next window: its previous key is the last current one
	f(3) // a clock set back

	rule := Rule{Name: "standard", Limit: 1 << 40, Window: time.Hour}
	allow := func() {
		if _, err := l.Allow(context.Background(), rule, "o1"); err != nil {
			t.Fatal(err)
		}
	}
	allow()
	if n := testing.AllocsPerRun(100, allow); n != 0 {
		t.Errorf("Allow on a Memory: got %v allocations, want 0", n)
	}
}
