package backlog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestObserve: the gate closes only while the backlog is over Max and the
// group's offsets grew within Stalled, and opens when either stops, or
// when the backlog cannot be read.
func TestObserve(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	g := &Gate{Max: 100, Stalled: 5 * time.Second}
	steps := []struct {
		name               string
		after              time.Duration
		backlog, committed int64
		ok, closed         bool
	}{
		{"first reading: where the offsets stand, no progress seen", 0, 500, 1000, true, false},
		{"offsets grew, backlog over Max", time.Second, 500, 1100, true, true},
		{"no growth yet, within Stalled", 2 * time.Second, 600, 1100, true, true},
		{"backlog down to Max", 3 * time.Second, 100, 1200, true, false},
		{"over Max again, progress 1s ago", 4 * time.Second, 300, 1200, true, true},
		{"no reading (log unreachable)", 4500 * time.Millisecond, 0, 0, false, false},
		{"reading again, growth within Stalled", 5 * time.Second, 300, 1300, true, true},
		{"no growth for Stalled: a stopped processor", 10 * time.Second, 900, 1300, true, false},
		{"stays open while stalled", 20 * time.Second, 5000, 1300, true, false},
		{"progress again", 21 * time.Second, 5000, 1301, true, true},
	}
	var changes []bool
	g.OnChange = func(closed bool, _ int64) { changes = append(changes, closed) }
	for _, st := range steps {
		g.observe(at.Add(st.after), st.backlog, st.committed, st.ok)
		if got := g.Closed(); got != st.closed {
			t.Fatalf("%s: got closed %v, want %v", st.name, got, st.closed)
		}
	}
	if want := []bool{true, false, true, false, true, false, true}; len(changes) != len(want) {
		t.Fatalf("got OnChange %v, want %v", changes, want)
	}
}

// TestAdmit: an open gate admits at once; a closed one holds a request
// until it opens, gives up with ErrBehind after MaxWait, and stops at the
// request's own end.
func TestAdmit(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	closed := func(maxWait time.Duration) *Gate {
		g := &Gate{Max: 10, MaxWait: maxWait}
		g.observe(at, 100, 1, true)
		g.observe(at.Add(time.Second), 100, 2, true)
		if !g.Closed() {
			t.Fatal("got an open gate, want it closed")
		}
		return g
	}
	if err := (*Gate)(nil).Admit(t.Context()); err != nil {
		t.Fatalf("nil gate: got %v, want nil", err)
	}
	if err := (&Gate{}).Admit(t.Context()); err != nil {
		t.Fatalf("zero gate: got %v, want nil", err)
	}

	g := closed(time.Hour)
	admitted := make(chan error, 1)
	go func() { admitted <- g.Admit(t.Context()) }()
	select {
	case err := <-admitted:
		t.Fatalf("got %v from a closed gate, want Admit to wait", err)
	case <-time.After(50 * time.Millisecond):
	}
	g.observe(at.Add(2*time.Second), 5, 3, true)
	if err := <-admitted; err != nil {
		t.Fatalf("once opened: got %v, want nil", err)
	}

	if err := closed(time.Millisecond).Admit(t.Context()); !errors.Is(err, ErrBehind) {
		t.Fatalf("after MaxWait: got %v, want ErrBehind", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := closed(time.Hour).Admit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("request ended: got %v, want context.Canceled", err)
	}
}
