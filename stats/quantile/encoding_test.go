package quantile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
)

// encodingCases are sketches of every shape the format must carry.
func encodingCases(t testing.TB) map[string]*Sketch {
	t.Helper()
	nanOnly := mustNew(t, DefaultAlpha)
	nanOnly.Add(math.NaN())
	neg := sketchOf(t, DefaultAlpha, []float64{-1, -2.5, -1e9})
	return map[string]*Sketch{
		"empty":      mustNew(t, DefaultAlpha),
		"nan only":   nanOnly,
		"one value":  sketchOf(t, DefaultAlpha, []float64{0.042}),
		"zeros":      sketchOf(t, DefaultAlpha, []float64{0, 0, -0.0, 1e-320}),
		"negative":   neg,
		"latency":    sketchOf(t, DefaultAlpha, generate(datasets[2], 1, 1000)),
		"alpha 0.05": sketchOf(t, 0.05, generate(datasets[8], 2, 1000)),
		"wide":       sketchOf(t, DefaultAlpha, wideValues(3, 20_000)),
	}
}

// TestRoundTrip: decoding an encoding gives a sketch that encodes to the same
// bytes, answers the same, and keeps behaving like the original.
func TestRoundTrip(t *testing.T) {
	extra := wideValues(77, 3000)
	for name, s := range encodingCases(t) {
		t.Run(name, func(t *testing.T) {
			b := mustMarshal(t, s)
			var d Sketch
			if err := d.UnmarshalBinary(b); err != nil {
				t.Fatalf("UnmarshalBinary: %v", err)
			}
			if got := mustMarshal(t, &d); string(got) != string(b) {
				t.Fatalf("re-encoding: got %x, want %x", got, b)
			}
			same := func(name string, got, want float64) {
				t.Helper()
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			same("Sum()", d.Sum(), s.Sum())
			same("Min()", d.Min(), s.Min())
			same("Max()", d.Max(), s.Max())
			same("Alpha()", d.Alpha(), s.Alpha())
			if d.Count() != s.Count() || d.NonFinite() != s.NonFinite() {
				t.Errorf("Count, NonFinite = %d, %d; want %d, %d", d.Count(), d.NonFinite(), s.Count(), s.NonFinite())
			}
			for _, q := range testQuantiles {
				got, gerr := d.Quantile(q)
				want, werr := s.Quantile(q)
				if got != want || (gerr == nil) != (werr == nil) {
					t.Errorf("Quantile(%v) = %v, %v; want %v, %v", q, got, gerr, want, werr)
				}
			}
			// The decoded sketch keeps working: adds and merges match the
			// original's.
			other := sketchOf(t, s.Alpha(), extra)
			for _, x := range []*Sketch{s.clone(), &d} {
				for _, v := range extra[:100] {
					x.Add(v)
				}
				if err := x.Merge(other); err != nil {
					t.Fatalf("Merge: %v", err)
				}
			}
			orig := s.clone()
			for _, v := range extra[:100] {
				orig.Add(v)
			}
			if err := orig.Merge(other); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if got, want := mustMarshal(t, &d), mustMarshal(t, orig); string(got) != string(want) {
				t.Errorf("decoded sketch after Add and Merge differs from the original's")
			}
		})
	}
}

// TestEncodingSize: a minute of latencies encodes compactly.
func TestEncodingSize(t *testing.T) {
	s := sketchOf(t, DefaultAlpha, generate(datasets[2], 1, 1000))
	b := mustMarshal(t, s)
	buckets := len(s.pos.used())
	if len(b) > 64+2*buckets {
		t.Errorf("%d bytes for %d buckets, want ≤ %d", len(b), buckets, 64+2*buckets)
	}
	t.Logf("1000 lognormal latencies: %d buckets, %d bytes", buckets, len(b))
}

func TestUnmarshalCorrupt(t *testing.T) {
	good := mustMarshal(t, sketchOf(t, DefaultAlpha, []float64{-3, 0, 0.5, 2, 2, 40}))
	withByte := func(i int, c byte) []byte {
		b := append([]byte(nil), good...)
		b[i] = c
		return b
	}
	enc := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	uv := func(x uint64) []byte { return binary.AppendUvarint(nil, x) }
	alpha := binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.01))
	cases := map[string][]byte{
		"nil":               nil,
		"version 0":         withByte(0, 0),
		"version 2":         withByte(0, 2),
		"trailing byte":     append(append([]byte(nil), good...), 0),
		"alpha NaN":         enc([]byte{1}, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN())), uv(0), uv(0), uv(0), uv(0), []byte{0}, uv(0)),
		"alpha 0.9":         enc([]byte{1}, binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.9)), uv(0), uv(0), uv(0), uv(0), []byte{0}, uv(0)),
		"too many buckets":  enc([]byte{1}, alpha, uv(0), uv(0), uv(MaxBuckets+1)),
		"key out of range":  enc([]byte{1}, alpha, uv(0), uv(0), uv(1), binary.AppendVarint(nil, 1<<40), uv(1)),
		"empty last bin":    enc([]byte{1}, alpha, uv(0), uv(0), uv(2), binary.AppendVarint(nil, 0), uv(1), uv(0)),
		"count overflow":    enc([]byte{1}, alpha, uv(math.MaxUint64), uv(0), uv(1), binary.AppendVarint(nil, 0), uv(1)),
		"negative zero":     enc([]byte{1}, alpha, uv(0), uv(0), uv(0), uv(0), []byte{1}, uv(0)),
		"limb too wide":     enc([]byte{1}, alpha, uv(0), uv(0), uv(0), uv(0), []byte{0}, uv(1), uv(3), uv(1<<32)),
		"limbs too high":    enc([]byte{1}, alpha, uv(0), uv(0), uv(0), uv(0), []byte{0}, uv(1), uv(maxLimbs), uv(1)),
		"min above max":     enc([]byte{1}, alpha, uv(1), uv(0), uv(0), uv(0), binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.0)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(-1.0)), []byte{0}, uv(0)),
		"non-minimal count": enc([]byte{1}, alpha, []byte{0x80, 0x00}, uv(0), uv(0), uv(0), []byte{0}, uv(0)),
		"non-minimal bin":   enc([]byte{1}, alpha, uv(0), uv(0), uv(1), binary.AppendVarint(nil, 0), []byte{0x81, 0x00}),
		"non-minimal limb":  enc([]byte{1}, alpha, uv(0), uv(0), uv(0), uv(0), []byte{0}, uv(1), uv(3), []byte{0x84, 0x00}),
		"min disagrees":     enc([]byte{1}, alpha, uv(1), uv(0), uv(0), uv(0), binary.LittleEndian.AppendUint64(nil, math.Float64bits(5.0)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(5.0)), []byte{0}, uv(0)),
	}
	for i := range good {
		cases[fmt.Sprintf("prefix %d", i)] = good[:i]
	}
	for name, b := range cases {
		s := sketchOf(t, DefaultAlpha, []float64{1})
		before := mustMarshal(t, s)
		err := s.UnmarshalBinary(b)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: UnmarshalBinary(%x) = %v, want ErrCorrupt", name, b, err)
		}
		if got := mustMarshal(t, s); string(got) != string(before) {
			t.Errorf("%s: failed UnmarshalBinary changed the sketch", name)
		}
	}
}

// TestUnmarshalReuse decodes into sketches that already hold data (larger
// stores, another α, a longer sum): the result is the encoded sketch alone.
func TestUnmarshalReuse(t *testing.T) {
	cases := encodingCases(t)
	for name, s := range cases {
		b := mustMarshal(t, s)
		for prev, p := range cases {
			d := p.clone()
			if err := d.UnmarshalBinary(b); err != nil {
				t.Fatalf("%s into %s: UnmarshalBinary: %v", name, prev, err)
			}
			if got := mustMarshal(t, d); string(got) != string(b) {
				t.Errorf("%s into %s: re-encoding differs", name, prev)
			}
			want := s.clone()
			for _, x := range []*Sketch{d, want} {
				x.Add(0.3)
				x.Add(-7)
			}
			if got, w := mustMarshal(t, d), mustMarshal(t, want); string(got) != string(w) {
				t.Errorf("%s into %s: after Add, encoding differs from the original's", name, prev)
			}
		}
	}
}
