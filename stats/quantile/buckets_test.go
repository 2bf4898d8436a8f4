package quantile

import (
	"math/rand/v2"
	"testing"
)

// TestBuckets checks that buckets come in ascending order of value with
// counts adding up, and that two sketches put equal values in buckets of
// the same Order.
func TestBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a, b Sketch
	for range 10_000 {
		v := r.NormFloat64() * 100
		if r.IntN(20) == 0 {
			v = 0
		}
		a.Add(v)
		b.Add(v * 1.5)
	}
	f := func(s *Sketch) {
		t.Helper()
		var n uint64
		first := true
		var prev Bucket
		for bk := range s.Buckets() {
			if !first && (bk.Order <= prev.Order || bk.Value <= prev.Value) {
				t.Fatalf("got bucket %+v after %+v, want ascending order and value", bk, prev)
			}
			first, prev = false, bk
			n += bk.Count
		}
		if n != s.Count() {
			t.Fatalf("got %d values in buckets, want %d", n, s.Count())
		}
	}
	f(&a)
	f(&b)
	var one, two Sketch
	one.Add(-3.25)
	two.Add(-3.25)
	two.Add(7)
	orders := map[float64]int64{}
	for bk := range one.Buckets() {
		orders[bk.Value] = bk.Order
	}
	for bk := range two.Buckets() {
		if o, ok := orders[bk.Value]; ok && o != bk.Order {
			t.Errorf("got order %d for value %v in one sketch, %d in the other; want equal", o, bk.Value, bk.Order)
		}
	}
}
