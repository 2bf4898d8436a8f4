package quantile

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// modelStore is the specification of a collapsing-lowest store: exact
// counts per key; keys ≤ max−MaxBuckets+1 are reported in that bucket.
type modelStore map[int32]uint64

func (m modelStore) want() (lo int32, counts []uint64) {
	if len(m) == 0 {
		return 0, nil
	}
	hi, low := int32(-1<<31), int32(1<<31-1)
	for k := range m {
		hi, low = max(hi, k), min(low, k)
	}
	lo = max(low, floorKey(hi))
	counts = make([]uint64, hi-lo+1)
	for k, c := range m {
		counts[max(k, lo)-lo] += c
	}
	return lo, counts
}

func checkStore(t *testing.T, what string, s *store, m modelStore) {
	t.Helper()
	lo, want := m.want()
	got := s.used()
	if !slices.Equal(got, want) || len(want) > 0 && s.lo != lo {
		t.Fatalf("%s: store [%d, %d] %v, want [%d, …] %v", what, s.lo, s.hi, got, lo, want)
	}
	if len(s.bins) > MaxBuckets {
		t.Fatalf("%s: %d bins, want ≤ %d", what, len(s.bins), MaxBuckets)
	}
	var n uint64
	for _, c := range s.bins {
		n += c
	}
	if n != s.count {
		t.Fatalf("%s: bins sum to %d, count is %d", what, n, s.count)
	}
}

// TestStoreMatchesModel drives stores with random keys drawn from narrow
// and wide ranges (which relocate, grow and collapse) and random merges, and
// compares them with the model after every step.
func TestStoreMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		var s, o store
		ms, mo := modelStore{}, modelStore{}
		width := []int32{1, 10, 300, 2047, 2048, 2049, 5000, 100_000}[round%8]
		center := int32(r.IntN(20_000)) - 10_000
		key := func() int32 { return center + int32(r.Int64N(int64(width))) - width/2 }
		for step := range 300 {
			switch r.IntN(10) {
			case 0: // merge o into s and start o afresh
				s.merge(&o)
				for k, c := range mo {
					ms[k] += c
				}
				o, mo = store{}, modelStore{}
				checkStore(t, "after merge", &s, ms)
			case 1:
				center += int32(r.IntN(4001)) - 2000 // drift
			case 2:
				k, n := key(), uint64(r.IntN(5)+1)
				o.add(k, n)
				mo[k] += n
			default:
				k, n := key(), uint64(r.IntN(3)+1)
				s.add(k, n)
				ms[k] += n
			}
			if step%7 == 0 {
				checkStore(t, "s", &s, ms)
				checkStore(t, "o", &o, mo)
			}
		}
		checkStore(t, "s", &s, ms)
		s.reset()
		checkStore(t, "after reset", &s, modelStore{})
		s.add(center, 1)
		checkStore(t, "add after reset", &s, modelStore{center: 1})
	}
}
