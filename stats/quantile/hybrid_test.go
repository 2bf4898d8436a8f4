package quantile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// numpyGolden is testdata/numpy_golden.json, written by
// testdata/numpy_golden.py with numpy.quantile(method="linear").
type numpyGolden struct {
	NumPyVersion string    `json:"numpy_version"`
	Method       string    `json:"method"`
	ExactLimit   int       `json:"exact_limit"`
	Quantiles    []float64 `json:"quantiles"`
	Datasets     []struct {
		Name      string    `json:"name"`
		Values    []float64 `json:"values"`
		Quantiles []float64 `json:"quantiles"`
	} `json:"datasets"`
}

func readNumPyGolden(t *testing.T) numpyGolden {
	t.Helper()
	raw, err := os.ReadFile("testdata/numpy_golden.json")
	if err != nil {
		t.Fatalf("read golden data: %v", err)
	}
	var g numpyGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("parse golden data: %v", err)
	}
	if g.Method != "linear" || g.ExactLimit != ExactLimit || len(g.Datasets) == 0 {
		t.Fatalf("golden data: method %q, exact limit %d, %d datasets; want linear, %d and some", g.Method, g.ExactLimit,
			len(g.Datasets), ExactLimit)
	}
	return g
}

// hybridOf adds vs to a Hybrid one by one.
func hybridOf(vs []float64) *Hybrid {
	var h Hybrid
	for _, v := range vs {
		h.Add(v)
	}
	return &h
}

// roundTrip encodes and decodes h.
func roundTrip(t *testing.T, h *Hybrid) *Hybrid {
	t.Helper()
	b, err := h.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	var got Hybrid
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatalf("UnmarshalBinary(%x): %v", b, err)
	}
	return &got
}

// mergedParts splits vs at random into parts, encodes each, decodes and
// merges them, as the rollups do with minutes and hours.
func mergedParts(t *testing.T, r *rand.Rand, vs []float64) *Hybrid {
	t.Helper()
	var h Hybrid
	for lo := 0; lo < len(vs); {
		hi := min(len(vs), lo+1+r.IntN(len(vs)/3+1))
		if err := h.Merge(roundTrip(t, hybridOf(vs[lo:hi]))); err != nil {
			t.Fatalf("Merge: %v", err)
		}
		lo = hi
	}
	return &h
}

// TestHybridNumPy: on NumPy's goldens, a Hybrid of up to ExactLimit
// values answers every quantile as numpy.quantile does (within 1e-9
// relative), one of more within α; built by adding, by decoding, or by
// merging encoded parts alike.
func TestHybridNumPy(t *testing.T) {
	g := readNumPyGolden(t)
	r := rand.New(rand.NewPCG(11, 25))
	exact, sketched := 0, 0
	for _, d := range g.Datasets {
		t.Run(d.Name, func(t *testing.T) {
			wantExact := len(d.Values) <= ExactLimit
			tolerance := DefaultAlpha
			if wantExact {
				tolerance = 1e-9
				exact++
			} else {
				sketched++
			}
			for _, way := range []struct {
				name string
				h    *Hybrid
			}{{"added", hybridOf(d.Values)}, {"decoded", roundTrip(t, hybridOf(d.Values))}, {"merged", mergedParts(t, r, d.Values)}} {
				if way.h.Exact() != wantExact || way.h.Count() != uint64(len(d.Values)) {
					t.Fatalf("%s: got exact %v, count %d; want %v, %d", way.name, way.h.Exact(), way.h.Count(), wantExact, len(d.Values))
				}
				for i, q := range g.Quantiles {
					got, err := way.h.Quantile(q)
					want := d.Quantiles[i]
					if err != nil || math.Abs(got-want) > tolerance*math.Abs(want) {
						t.Errorf("%s: got q%v = %v (%v), want NumPy's %v within %v relative", way.name, q, got, err, want, tolerance)
					}
				}
			}
		})
	}
	if exact < 20 || sketched < 3 {
		t.Fatalf("got %d exact and %d sketched datasets, want both kinds", exact, sketched)
	}
}

// TestHybridIssue11 is the issue's case: latencies 9 and 12.
func TestHybridIssue11(t *testing.T) {
	h := hybridOf([]float64{9, 12})
	for _, c := range []struct{ q, want float64 }{{0.5, 10.5}, {0.95, 11.85}, {0.99, 11.97}} {
		if got, err := h.Quantile(c.q); err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("got q%v = %v (%v), want %v", c.q, got, err, c.want)
		}
	}
}

// TestHybridMergeIsUnion: merged-then-queried equals queried-over-the-union,
// byte for byte, for random samples split at random, on both sides of
// ExactLimit.
func TestHybridMergeIsUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 17, ExactLimit - 1, ExactLimit, ExactLimit + 1, 3 * ExactLimit, 5000} {
		for trial := range 5 {
			t.Run(fmt.Sprintf("n=%d/%d", n, trial), func(t *testing.T) {
				vs := make([]float64, n)
				for i := range vs {
					vs[i] = math.Round(r.ExpFloat64()*2500) / 100
				}
				whole, merged := hybridOf(vs), mergedParts(t, r, vs)
				a, _ := whole.MarshalBinary()
				b, _ := merged.MarshalBinary()
				if string(a) != string(b) {
					t.Fatalf("got merged encoding %x, want the union's %x", b, a)
				}
				if whole.Exact() != (n <= ExactLimit) {
					t.Fatalf("got exact %v for %d values, want %v", whole.Exact(), n, n <= ExactLimit)
				}
				for _, q := range []float64{0, 0.5, 0.95, 0.99, 1} {
					x, _ := whole.Quantile(q)
					y, _ := merged.Quantile(q)
					if x != y {
						t.Fatalf("got merged q%v = %v, want the union's %v", q, y, x)
					}
				}
			})
		}
	}
}

// TestHybridReadsStoredSketches: a Sketch's encoding, as rollups stored
// latencies before Hybrid, decodes as a Hybrid beyond ExactLimit that
// interpolates between the sketch's ranks and merges with exact parts.
func TestHybridReadsStoredSketches(t *testing.T) {
	s := mustNew(t, DefaultAlpha)
	for _, v := range []float64{9, 12} {
		s.Add(v)
	}
	old, _ := s.MarshalBinary()
	var h Hybrid
	if err := h.UnmarshalBinary(old); err != nil {
		t.Fatalf("UnmarshalBinary(a stored Sketch): %v", err)
	}
	if h.Exact() || h.Count() != 2 {
		t.Fatalf("got exact %v, count %d; want a sketch of 2", h.Exact(), h.Count())
	}
	if got, _ := h.Quantile(0.5); math.Abs(got-10.5) > DefaultAlpha*10.5 {
		t.Fatalf("got p50 %v, want 10.5 within α", got)
	}
	if err := h.Merge(hybridOf([]float64{10, 11})); err != nil || h.Count() != 4 || h.Exact() {
		t.Fatalf("got count %d, exact %v (%v) after merging exact values, want a sketch of 4", h.Count(), h.Exact(), err)
	}
	if b, _ := h.MarshalBinary(); b[0] != encodingVersion {
		t.Fatalf("got encoding version %d, want the Sketch's %d", b[0], encodingVersion)
	}
	other, _ := New(0.05)
	other.Add(1)
	enc, _ := other.MarshalBinary()
	var o Hybrid
	if err := o.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if err := h.Merge(&o); !errors.Is(err, ErrAlphaMismatch) || h.Count() != 4 {
		t.Fatalf("got %v and count %d merging another α, want ErrAlphaMismatch and 4", err, h.Count())
	}
}

// TestHybridCorrupt: malformed exact encodings are ErrCorrupt and leave
// the Hybrid as it was.
func TestHybridCorrupt(t *testing.T) {
	enc := func(nonFinite, n uint64, vs ...float64) []byte {
		b := binary.AppendUvarint(binary.AppendUvarint([]byte{hybridExact}, nonFinite), n)
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	tooMany := make([]float64, ExactLimit+1)
	for name, b := range map[string][]byte{
		"empty":       {},
		"version":     {9, 0, 0},
		"truncated":   enc(0, 2, 1)[:10],
		"extra bytes": append(enc(0, 1, 1), 0),
		"unsorted":    enc(0, 2, 2, 1),
		"NaN":         enc(0, 1, math.NaN()),
		"Inf":         enc(0, 1, math.Inf(1)),
		"minus zero":  enc(0, 1, math.Copysign(0, -1)),
		"over limit":  enc(0, ExactLimit+1, tooMany...),
		"varint":      {hybridExact, 0x80, 0x00, 0},
	} {
		h := hybridOf([]float64{5})
		if err := h.UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
		if got, _ := h.Quantile(0.5); got != 5 || h.Count() != 1 {
			t.Errorf("%s: got count %d, p50 %v after a failed decode, want it unchanged", name, h.Count(), got)
		}
	}
}

// TestHybridNonFinite: NaN and ±Inf are counted apart and kept across a
// spill into the sketch.
func TestHybridNonFinite(t *testing.T) {
	h := hybridOf([]float64{math.NaN(), 3, math.Inf(-1), math.Copysign(0, -1)})
	if h.Count() != 2 {
		t.Fatalf("got count %d, want 2", h.Count())
	}
	if got, _ := h.Quantile(0); got != 0 || math.Signbit(got) {
		t.Fatalf("got min %v, want +0", got)
	}
	for i := range ExactLimit {
		h.Add(float64(i))
	}
	if h.Exact() || h.sketch.NonFinite() != 2 || h.Count() != ExactLimit+2 {
		t.Fatalf("got exact %v, non-finite %d, count %d; want a sketch with 2 and %d", h.Exact(), h.sketch.NonFinite(),
			h.Count(), ExactLimit+2)
	}
}

// FuzzHybridUnmarshal: no input makes UnmarshalBinary panic; an accepted
// input is canonical (re-encodes to itself), and the Hybrid answers
// quantiles between its smallest and largest and merges with itself.
func FuzzHybridUnmarshal(f *testing.F) {
	for _, vs := range [][]float64{nil, {9, 12}, {0, 1, 1, 2.5}} {
		b, _ := hybridOf(vs).MarshalBinary()
		f.Add(b)
	}
	big, _ := hybridOf(make([]float64, ExactLimit+1)).MarshalBinary()
	f.Add(big)
	f.Fuzz(func(t *testing.T, data []byte) {
		var h Hybrid
		if err := h.UnmarshalBinary(data); err != nil {
			return
		}
		if b, _ := h.MarshalBinary(); string(b) != string(data) {
			t.Fatalf("accepted %x, re-encoded as %x", data, b)
		}
		lo, errLo := h.Quantile(0)
		hi, _ := h.Quantile(1)
		for _, q := range []float64{0.01, 0.5, 0.99} {
			if v, err := h.Quantile(q); errLo == nil && (err != nil || v < lo || v > hi) {
				t.Fatalf("Quantile(%v) = %v (%v), want within [%v, %v]", q, v, err, lo, hi)
			}
		}
		n := h.Count()
		if err := h.Merge(&h); err == nil && h.Count() != 2*n {
			t.Fatalf("got count %d after merging with itself, want %d", h.Count(), 2*n)
		}
	})
}
