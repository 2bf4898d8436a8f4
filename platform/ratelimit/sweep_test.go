package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

// TestMemorySweep checks that expired entries do not accumulate: a stream of
// short-lived keys keeps the Memory near the number of live ones.
func TestMemorySweep(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &Memory{now: func() time.Time { return now }}
	ctx := t.Context()
	const live = 100 // keys live at once: ttl / step
	const step, ttl = time.Millisecond, live * time.Millisecond
	peak := 0
	for i := range 100_000 {
		key := fmt.Sprint("k", i)
		switch i % 3 {
		case 0:
			m.Incr(ctx, key, ttl)
		case 1:
			m.Block(ctx, key, ttl)
		case 2:
			m.Incr(ctx, key, ttl)
			m.Block(ctx, key, 2*ttl)
		}
		now = now.Add(step)
		peak = max(peak, len(m.entries))
	}
	// At most 2*L+minSweep entries, L being the live ones at the last sweep.
	if limit := 2*2*live + minSweep; peak > limit {
		t.Fatalf("peak entries: got %d, want <= %d", peak, limit)
	}

	// Once everything has expired, reads alone empty the Memory.
	now = now.Add(time.Hour)
	for range minSweep {
		m.Get(ctx, "missing")
	}
	if got := len(m.entries); got != 0 {
		t.Fatalf("entries after expiry and %d reads: got %d, want 0", minSweep, got)
	}
}

// TestMemorySweepKeepsLive checks that a sweep keeps live counters and blocks.
func TestMemorySweepKeepsLive(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &Memory{now: func() time.Time { return now }}
	ctx := t.Context()
	m.Incr(ctx, "counter", time.Hour)
	m.Incr(ctx, "forever", 0)
	m.Block(ctx, "block", time.Hour)
	m.Incr(ctx, "expired", time.Second)
	now = now.Add(time.Minute)
	m.sweep(now)
	if got, want := len(m.entries), 3; got != want {
		t.Fatalf("entries after sweep: got %d, want %d", got, want)
	}
	f := func(key string, wantN int64, wantBlocked time.Duration) {
		t.Helper()
		if n, _ := m.Get(ctx, key); n != wantN {
			t.Errorf("Get(%q): got %d, want %d", key, n, wantN)
		}
		if d, _ := m.Blocked(ctx, key); d != wantBlocked {
			t.Errorf("Blocked(%q): got %v, want %v", key, d, wantBlocked)
		}
	}
	f("counter", 1, 0)
	f("forever", 1, 0)
	f("block", 0, 59*time.Minute)
	f("expired", 0, 0)
}
