package drift

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// offer offers rows from..to-1 of feature x (value = row number) to s.
func offer(s *Sample, seed uint64, from, to int) {
	s.Offer(to-from, seed, func(i int) map[string]any { return map[string]any{"x": float64(from + i)} })
}

// TestSampleUniform: over 2,000 seeds, each of 1,000 rows offered in
// appends of 137 is kept in 200 of 1,000 samples' worth of trials
// (inclusion 0.2: 400 of 2,000, standard deviation 17.9): every row
// within 400 ± 108 (6 standard deviations), each tenth of the rows within
// 40,000 ± 1,000 of its 100 rows' total; every sample holds 200 rows
// having seen 1,000, and the same seed gives the same sample whichever
// way the rows are split into appends.
func TestSampleUniform(t *testing.T) {
	const rows, trials, part = 1000, 2000, 137
	counts := make([]int, rows)
	for seed := range uint64(trials) {
		var s Sample
		for from := 0; from < rows; from += part {
			offer(&s, seed, from, min(rows, from+part))
		}
		if len(s.Rows) != MaxSampleRows || s.Seen != rows {
			t.Fatalf("seed %d: got %d rows of %d seen, want %d of %d", seed, len(s.Rows), s.Seen, MaxSampleRows, rows)
		}
		seen := map[float64]bool{}
		for _, r := range s.Rows {
			x := r["x"].(float64)
			if seen[x] {
				t.Fatalf("seed %d: got row %v twice", seed, x)
			}
			seen[x] = true
			counts[int(x)]++
		}
		if seed < 5 {
			var whole Sample
			offer(&whole, seed, 0, rows)
			if !reflect.DeepEqual(whole, s) {
				t.Errorf("seed %d: got a different sample from one upload than from appends of %d", seed, part)
			}
		}
	}
	want := float64(trials) * MaxSampleRows / rows
	for i, c := range counts {
		if math.Abs(float64(c)-want) > 108 {
			t.Errorf("row %d: kept in %d of %d trials, want %v ± 108", i, c, trials, want)
		}
	}
	for tenth := range 10 {
		sum := 0
		for _, c := range counts[tenth*100 : tenth*100+100] {
			sum += c
		}
		if math.Abs(float64(sum)-100*want) > 1000 {
			t.Errorf("rows %d-%d: kept %d times, want %v ± 1000", tenth*100, tenth*100+99, sum, 100*want)
		}
	}
}

// TestSampleSmall: fewer rows than the reservoir holds are all kept, in
// order; a PUT's change starts again (Seen 0).
func TestSampleSmall(t *testing.T) {
	var s Sample
	offer(&s, 7, 0, 30)
	offer(&s, 7, 30, 50)
	if s.Seen != 50 || len(s.Rows) != 50 {
		t.Fatalf("got %d rows of %d seen, want 50 of 50", len(s.Rows), s.Seen)
	}
	for i, r := range s.Rows {
		if r["x"] != float64(i) {
			t.Fatalf("row %d: got %v, want %d", i, r["x"], i)
		}
	}
}

// TestSampleRows: a reference_data's columns become rows of the values as
// a sample keeps them: numbers beyond float64's range null, strings cut
// to 256 bytes at a character boundary.
func TestSampleRows(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	data := map[string][]json.RawMessage{
		"age":  {json.RawMessage(`31`), json.RawMessage(`1e400`)},
		"city": {json.RawMessage(`"Oslo"`), json.RawMessage(fmt.Sprintf("%q", long))},
		"vip":  {json.RawMessage(`true`), json.RawMessage(`null`)},
	}
	var s Sample
	s.sampleRows(data, SampleSeed("m"))
	want := []map[string]any{{"age": 31.0, "city": "Oslo", "vip": true}, {"age": nil, "city": strings.Repeat("é", 128), "vip": nil}}
	if !reflect.DeepEqual(s.Rows, want) {
		t.Errorf("got %v, want %v", s.Rows, want)
	}
}
