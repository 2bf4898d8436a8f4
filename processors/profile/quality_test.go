package profile

import (
	"encoding/json"
	"math"
	"testing"
)

func TestQualityAdd(t *testing.T) {
	f := func(pred, label string, wantLabelled, wantMatched, wantNumeric int64, wantAbs float64) {
		t.Helper()
		var q Quality
		q.Add(json.RawMessage(pred), json.RawMessage(label))
		if q.Labelled != wantLabelled || q.Matched != wantMatched || q.Numeric != wantNumeric || q.AbsError != wantAbs {
			t.Errorf("Add(%s, %s): got %+v, want labelled %d, matched %d, numeric %d, abs error %v",
				pred, label, q, wantLabelled, wantMatched, wantNumeric, wantAbs)
		}
	}
	f(`1`, `1`, 1, 1, 1, 0)
	f(`1`, `"1"`, 1, 1, 1, 0)
	f(`1.0`, `1`, 1, 1, 1, 0)
	f(`0.25`, `1`, 1, 0, 1, 0.75)
	f(`"cat"`, `"cat"`, 1, 1, 0, 0)
	f(`"cat"`, `"dog"`, 1, 0, 0, 0)
	f(`true`, `true`, 1, 1, 0, 0)
	f(`true`, `"true"`, 1, 1, 0, 0)
	f(`false`, `true`, 1, 0, 0, 0)
	f(`1`, ``, 0, 0, 0, 0)
	f(`1`, `null`, 0, 0, 0, 0)
	f(`null`, `1`, 0, 0, 0, 0)
	f(`[1]`, `1`, 0, 0, 0, 0)
	f(`1`, `{"a":1}`, 0, 0, 0, 0)
}

func TestQualityMetric(t *testing.T) {
	var q Quality
	for i, pair := range [][2]string{{`1`, `1`}, {`0`, `1`}, {`3`, `1`}, {`"a"`, `"a"`}} {
		// Alternate profiles merged: the same as adding all to one.
		var one Quality
		one.Add(json.RawMessage(pair[0]), json.RawMessage(pair[1]))
		if i%2 == 0 {
			q.Merge(one)
		} else {
			q.Add(json.RawMessage(pair[0]), json.RawMessage(pair[1]))
		}
	}
	for name, want := range map[string]struct {
		v float64
		n int64
	}{
		"accuracy": {0.5, 4}, "error_rate": {0.5, 4}, "mae": {1, 3}, "mse": {5.0 / 3, 3}, "rmse": {math.Sqrt(5.0 / 3), 3},
	} {
		v, n, ok := q.Metric(name)
		if !ok || math.Abs(v-want.v) > 1e-15 || n != want.n {
			t.Errorf("Metric(%s): got %v over %d (%v), want %v over %d", name, v, n, ok, want.v, want.n)
		}
	}
	if _, _, ok := q.Metric("auc"); ok {
		t.Error("Metric(auc): got ok, want not computed")
	}
	if _, _, ok := (Quality{}).Metric("accuracy"); ok {
		t.Error("Metric(accuracy) of no labels: got ok, want not computed")
	}
}

// TestQualityEncoding: a profile's tallies survive its stored form, and a
// profile stored before they existed reads as unlabelled.
func TestQualityEncoding(t *testing.T) {
	p := Profile{}
	p.Add(json.RawMessage(`{"prediction":1}`))
	p.Quality.Add(json.RawMessage(`1`), json.RawMessage(`0`))
	b, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	var got Profile
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Quality != p.Quality {
		t.Errorf("got %+v, want %+v (from %s)", got.Quality, p.Quality, b)
	}
	var old Profile
	if err := json.Unmarshal([]byte(`{"rows":1}`), &old); err != nil || old.Quality != (Quality{}) {
		t.Errorf("got %+v (%v), want no tallies", old.Quality, err)
	}
}
