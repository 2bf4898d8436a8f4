package evaluation

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzFastNumbers checks the fast decoders against encoding/json on valid
// JSON: when they accept, they must agree exactly; when encoding/json reads
// a clean numeric array (no null), they must accept it.
func FuzzFastNumbers(f *testing.F) {
	for _, s := range []string{`[]`, ` [ 1 , -2.5e3,0 ] `, `[1e400]`, `[null]`, `["1"]`, `[[1,2],[3]]`, `[[],[ ]]`, `[1,[2]]`, `[-0]`, `[[0.1, 1e-320]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		clean := bytes.IndexByte(b, 'n') < 0
		var want []float64
		errFlat := json.Unmarshal(b, &want)
		got, ok := fastNumbers(b)
		if ok && (errFlat != nil || !sameFloats(got, want)) {
			t.Fatalf("fastNumbers(%q) = %v, encoding/json = %v, %v", b, got, want, errFlat)
		}
		if !ok && errFlat == nil && clean {
			t.Fatalf("fastNumbers(%q) refused what encoding/json reads as %v", b, want)
		}
		var wantRows [][]float64
		errRows := json.Unmarshal(b, &wantRows)
		gotRows, ok := fastRows(b)
		if ok && (errRows != nil || !slices.EqualFunc(gotRows, wantRows, sameFloats)) {
			t.Fatalf("fastRows(%q) = %v, encoding/json = %v, %v", b, gotRows, wantRows, errRows)
		}
		if !ok && errRows == nil && clean {
			t.Fatalf("fastRows(%q) refused what encoding/json reads as %v", b, wantRows)
		}
	})
}

// sameFloats compares bit patterns, so -0 and +0 differ.
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func TestFastNumbersMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	v := make([]float64, 5000)
	for i := range v {
		v[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := fastNumbers(b)
	if !ok || !sameFloats(got, v) {
		t.Fatalf("fastNumbers: ok=%v, want the %d marshalled values back", ok, len(v))
	}
}
