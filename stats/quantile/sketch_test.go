package quantile

import (
	"errors"
	"math"
	"testing"
)

func TestNewAlpha(t *testing.T) {
	for _, tc := range []struct {
		alpha float64
		ok    bool
	}{
		{0.01, true}, {MinAlpha, true}, {MaxAlpha, true}, {0.001, true},
		{0, false}, {-0.01, false}, {1, false}, {0.6, false}, {1e-7, false},
		{math.NaN(), false}, {math.Inf(1), false},
	} {
		s, err := New(tc.alpha)
		if tc.ok {
			if err != nil || s.Alpha() != tc.alpha {
				t.Errorf("New(%v) = %v, %v; want a sketch with that alpha", tc.alpha, s, err)
			}
			continue
		}
		if !errors.Is(err, ErrAlpha) {
			t.Errorf("New(%v): got error %v, want ErrAlpha", tc.alpha, err)
		}
	}
}

func TestEmptySketch(t *testing.T) {
	for name, s := range map[string]*Sketch{"New": mustNew(t, DefaultAlpha), "zero value": new(Sketch)} {
		if _, err := s.Quantile(0.5); !errors.Is(err, ErrEmpty) {
			t.Errorf("%s: Quantile on empty: got %v, want ErrEmpty", name, err)
		}
		if s.Count() != 0 || s.Sum() != 0 || !math.IsNaN(s.Min()) || !math.IsNaN(s.Max()) {
			t.Errorf("%s: Count, Sum, Min, Max = %d, %v, %v, %v; want 0, 0, NaN, NaN",
				name, s.Count(), s.Sum(), s.Min(), s.Max())
		}
		if s.Alpha() != DefaultAlpha {
			t.Errorf("%s: Alpha() = %v, want %v", name, s.Alpha(), DefaultAlpha)
		}
	}
}

// TestZeroValueUsable: the zero Sketch behaves as New(DefaultAlpha).
func TestZeroValueUsable(t *testing.T) {
	vs := generate(datasets[2], 1, 1000)
	var z Sketch
	for _, v := range vs {
		z.Add(v)
	}
	if got, want := mustMarshal(t, &z), mustMarshal(t, sketchOf(t, DefaultAlpha, vs)); string(got) != string(want) {
		t.Errorf("zero-value sketch differs from New(DefaultAlpha)")
	}
}

func TestQuantileRange(t *testing.T) {
	s := sketchOf(t, DefaultAlpha, []float64{1, 2, 3})
	for _, q := range []float64{-0.1, 1.0000001, math.NaN(), math.Inf(1)} {
		if _, err := s.Quantile(q); !errors.Is(err, ErrQuantile) {
			t.Errorf("Quantile(%v): got %v, want ErrQuantile", q, err)
		}
	}
}

// TestNonFinite: NaN and ±Inf are counted apart and change nothing else.
func TestNonFinite(t *testing.T) {
	s := sketchOf(t, DefaultAlpha, []float64{1, 2, 3})
	want := sketchOf(t, DefaultAlpha, []float64{1, 2, 3})
	s.Add(math.NaN())
	s.Add(math.Inf(1))
	s.Add(math.Inf(-1))
	s.AddN(math.NaN(), 5)
	if got := s.NonFinite(); got != 8 {
		t.Errorf("NonFinite() = %d, want 8", got)
	}
	if s.Count() != 3 || s.Sum() != 6 || s.Min() != 1 || s.Max() != 3 {
		t.Errorf("Count, Sum, Min, Max = %d, %v, %v, %v; want 3, 6, 1, 3", s.Count(), s.Sum(), s.Min(), s.Max())
	}
	for _, q := range testQuantiles {
		got, _ := s.Quantile(q)
		w, _ := want.Quantile(q)
		if got != w {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, w)
		}
	}
	only := mustNew(t, DefaultAlpha)
	only.Add(math.NaN())
	if _, err := only.Quantile(0.5); !errors.Is(err, ErrEmpty) {
		t.Errorf("Quantile on a NaN-only sketch: got %v, want ErrEmpty", err)
	}
	if err := s.Merge(only); err != nil || s.NonFinite() != 9 {
		t.Errorf("Merge of a NaN-only sketch: NonFinite() = %d, %v; want 9, nil", s.NonFinite(), err)
	}
}

func TestExactStats(t *testing.T) {
	vs := []float64{0.5, -2, 0, 7.25, -0.0, 1e-310, 3}
	s := sketchOf(t, DefaultAlpha, vs)
	f := func(name string, got, want float64) {
		t.Helper()
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	f("Min()", s.Min(), -2)
	f("Max()", s.Max(), 7.25)
	f("Sum()", s.Sum(), 8.75+1e-310)
	f("Quantile(0)", must(s.Quantile(0)), -2)
	f("Quantile(1)", must(s.Quantile(1)), 7.25)
	// Sorted: -2, -0, 0, 1e-310, 0.5, 3, 7.25; ranks 1..3 are zeros.
	f("Quantile(0.2)", must(s.Quantile(0.2)), 0)
	f("Quantile(0.5)", must(s.Quantile(0.5)), 0)
	if got := s.Count(); got != 7 {
		t.Errorf("Count() = %d, want 7", got)
	}
	z := sketchOf(t, DefaultAlpha, []float64{-0.0})
	f("Min() of -0", z.Min(), 0)
}

func must(v float64, err error) float64 {
	if err != nil {
		panic(err)
	}
	return v
}

func TestReset(t *testing.T) {
	s := sketchOf(t, 0.02, wideValues(1, 10_000))
	s.Reset()
	empty := mustNew(t, 0.02)
	if got, want := mustMarshal(t, s), mustMarshal(t, empty); string(got) != string(want) {
		t.Errorf("after Reset: encoding %x, want %x", got, want)
	}
	vs := generate(datasets[3], 2, 5000)
	for _, v := range vs {
		s.Add(v)
	}
	if got, want := mustMarshal(t, s), mustMarshal(t, sketchOf(t, 0.02, vs)); string(got) != string(want) {
		t.Errorf("sketch reused after Reset differs from a new one")
	}
}

// TestTinyValues: magnitudes below ~2.2e-308 count as zero, and quantiles
// are clamped into [Min, Max] (FuzzUnmarshal found an unclamped 0).
func TestTinyValues(t *testing.T) {
	s := sketchOf(t, DefaultAlpha, []float64{1e-310, 2e-310, 3e-310})
	got, err := s.Quantile(0.5)
	if err != nil || got < 1e-310 || got > 3e-310 {
		t.Errorf("Quantile(0.5) = %v, %v; want within [1e-310, 3e-310]", got, err)
	}
}
