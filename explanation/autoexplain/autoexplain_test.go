package autoexplain

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestSampled: the share of 20,000 ids sampled is the rate within 1.5
// points, the same id always answers the same, 0 samples none and 1
// every one.
func TestSampled(t *testing.T) {
	for _, rate := range []float64{0, 0.01, 0.1, 0.5, 0.9, 1} {
		n := 0
		for i := range 20000 {
			id := fmt.Sprintf("p-%d", i)
			if Sampled(id, rate) {
				n++
			}
			if Sampled(id, rate) != Sampled(id, rate) {
				t.Fatalf("%s at %v: got two answers, want one", id, rate)
			}
		}
		if got := float64(n) / 20000; math.Abs(got-rate) > 0.015 {
			t.Errorf("rate %v: got share %v, want within 0.015", rate, got)
		}
	}
}

// TestTake: the budget holds one second of explanations, refills at
// PerSecond and never beyond a second's worth.
func TestTake(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	x := &Explainer{PerSecond: 5, Clock: func() time.Time { return now }}
	f := func(want int) {
		t.Helper()
		got := 0
		for x.take() {
			got++
		}
		if got != want {
			t.Errorf("at %v: got %d explanations taken, want %d", now, got, want)
		}
	}
	f(5)
	now = now.Add(400 * time.Millisecond)
	f(2)
	now = now.Add(time.Hour)
	f(5)
}
