package quantile

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzUnmarshal: no input makes UnmarshalBinary panic; an accepted input is
// canonical (re-encodes to itself) and the decoded sketch answers queries,
// merges and accepts values without panicking.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range encodingCases(f) {
		b, err := s.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Sketch
		if err := s.UnmarshalBinary(data); err != nil {
			return
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary after a successful UnmarshalBinary: %v", err)
		}
		if string(b) != string(data) {
			t.Fatalf("accepted %x, re-encoded as %x", data, b)
		}
		for _, q := range []float64{0, 0.01, 0.5, 0.99, 1} {
			v, err := s.Quantile(q)
			if err == nil && (v < s.Min() || v > s.Max()) {
				t.Fatalf("Quantile(%v) = %v outside [%v, %v]", q, v, s.Min(), s.Max())
			}
		}
		_ = s.Sum()
		if err := s.Merge(&s); err != nil {
			t.Fatalf("Merge(self): %v", err)
		}
		s.Add(1)
		s.Add(-1e300)
		s.Add(1e300)
		s.AddN(math.NaN(), 3)
		if _, err := s.MarshalBinary(); err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
	})
}

// FuzzAddMerge: for any values, the sketch of all of them equals (byte for
// byte) the merge of sketches of two halves in either order, and every
// guaranteed quantile is within α of the exact one.
func FuzzAddMerge(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\xc0"), uint8(1))
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		var vs, finite []float64
		for len(data) >= 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			vs = append(vs, v)
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				finite = append(finite, v)
			}
		}
		c := int(cut) % (len(vs) + 1)
		whole := sketchOf(t, DefaultAlpha, vs)
		a, b := sketchOf(t, DefaultAlpha, vs[:c]), sketchOf(t, DefaultAlpha, vs[c:])
		ab, ba := mustNew(t, DefaultAlpha), mustNew(t, DefaultAlpha)
		for _, m := range []error{ab.Merge(a), ab.Merge(b), ba.Merge(b), ba.Merge(a)} {
			if m != nil {
				t.Fatal(m)
			}
		}
		w := mustMarshal(t, whole)
		if string(mustMarshal(t, ab)) != string(w) || string(mustMarshal(t, ba)) != string(w) {
			t.Fatalf("merged halves differ from the whole")
		}
		if len(finite) > 0 {
			checkAccuracy(t, whole, finite, testQuantiles)
		}
	})
}
