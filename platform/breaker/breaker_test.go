package breaker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// errDown is an outage as a Redis client reports it.
var errDown = fmt.Errorf("redis get: %w: dial tcp: connection refused", ErrUnavailable)

// TestTrip: which errors open a closed breaker, and that OnChange hears
// of the opening once.
func TestTrip(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	f := func(ctx context.Context, err error, want bool) {
		t.Helper()
		var changes []bool
		b := &Breaker{OnChange: func(up bool, _ error) { changes = append(changes, up) }}
		if got := b.Trip(ctx, err); got != want {
			t.Errorf("Trip(%v): got %v, want %v", err, got, want)
		}
		if got := b.Up(); got == want {
			t.Errorf("Trip(%v): got Up %v, want %v", err, got, !want)
		}
		if got := b.Allow(); got == want {
			t.Errorf("Trip(%v): got Allow %v, want %v", err, got, !want)
		}
		if want && (len(changes) != 1 || changes[0]) {
			t.Errorf("Trip(%v): got changes %v, want [false]", err, changes)
		}
		if !want && len(changes) != 0 {
			t.Errorf("Trip(%v): got changes %v, want none", err, changes)
		}
	}
	f(context.Background(), nil, false)
	f(context.Background(), errors.New("WRONGTYPE"), false)
	f(cancelled, errDown, false)                                       // the caller gave up, Redis did not
	f(context.Background(), fmt.Errorf("%w", context.Canceled), false) // not an outage either
	f(context.Background(), errDown, true)
	f(context.Background(), fmt.Errorf("limits: %w", errDown), true)
}

// clock is a time that moves only when the test moves it.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }

// TestProbe walks the breaker through an outage: open at the first
// failure, no probe before Interval, one probe at a time after it, and
// closed by the probe that succeeds.
func TestProbe(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	probes := make(chan chan error) // each probe waits for the test's answer
	changes := make(chan bool, 2)
	b := &Breaker{
		Probe: func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("probe: got a context without deadline, want Interval's")
			}
			answer := make(chan error)
			probes <- answer
			return <-answer
		},
		Interval: time.Minute, Now: c.now,
		OnChange: func(up bool, _ error) { changes <- up },
	}
	// probing reports whether a probe started at the clock's time.
	probing := func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.probing && b.lastProbe.Equal(c.t)
	}
	if !b.Allow() || !b.Trip(context.Background(), errDown) || b.Up() {
		t.Fatal("first failure: got the breaker closed, want it open")
	}
	if up := <-changes; up {
		t.Fatal("first failure: got OnChange(true), want false")
	}
	b.Trip(context.Background(), errDown)
	c.add(59 * time.Second)
	if b.Allow() || probing() {
		t.Fatal("59s after the failure: got a call or a probe, want neither")
	}
	c.add(time.Second)
	if b.Allow() || !probing() {
		t.Fatal("1 min after the failure: got no probe or a call, want a probe and no call")
	}
	answer := receive(t, probes)
	c.add(2 * time.Minute)
	if b.Allow() || probing() {
		t.Fatal("a probe in flight for 2 min: got another probe or a call, want neither")
	}
	answer <- nil
	if up := <-changes; !up || !b.Up() || !b.Allow() {
		t.Fatal("probe answered: got the breaker open, want it closed")
	}
}

// receive waits for the probe that Allow started.
func receive(t *testing.T, probes chan chan error) chan error {
	t.Helper()
	select {
	case answer := <-probes:
		return answer
	case <-time.After(30 * time.Second):
		t.Fatal("no probe ran within 30s")
		return nil
	}
}

// TestProbeOutcome: a probe that fails leaves the breaker open, one that
// succeeds closes it, and with no Probe the breaker closes once a probe
// is due. probe runs in the test's goroutine here.
func TestProbeOutcome(t *testing.T) {
	f := func(probe func(context.Context) error, want []bool) {
		t.Helper()
		var changes []bool
		b := &Breaker{Probe: probe, OnChange: func(up bool, _ error) { changes = append(changes, up) }}
		b.Trip(context.Background(), errDown)
		b.probing = true
		b.probe()
		if up := want[len(want)-1]; b.Up() != up || b.probing {
			t.Errorf("after the probe: got up %v, probing %v, want %v, false", b.Up(), b.probing, up)
		}
		if fmt.Sprint(changes) != fmt.Sprint(want) {
			t.Errorf("got changes %v, want %v", changes, want)
		}
	}
	f(func(context.Context) error { return errDown }, []bool{false})
	f(func(context.Context) error { return nil }, []bool{false, true})
	f(nil, []bool{false, true})
}
