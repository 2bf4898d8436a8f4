package ratelimit

import (
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

// TestWindowKeyAllocations: a window key costs one allocation, its string.
func TestWindowKeyAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = windowKey("standard", "org:0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b", 493_123) }); n != 1 {
		t.Fatalf("got %v allocations, want 1", n)
	}
	if got, want := windowKey("r", "s:1", -2), "rl:{1:r:s:1}:-2"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
