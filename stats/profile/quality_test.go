package profile

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
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
	if !reflect.DeepEqual(got.Quality, p.Quality) {
		t.Errorf("got %+v, want %+v (from %s)", got.Quality, p.Quality, b)
	}
	var old Profile
	if err := json.Unmarshal([]byte(`{"rows":1}`), &old); err != nil || !reflect.DeepEqual(old.Quality, Quality{}) {
		t.Errorf("got %+v (%v), want no tallies", old.Quality, err)
	}
}

// TestQualityGolden checks Quality's metrics against scikit-learn's on
// the labelled predictions of testdata/quality_golden.json (made by
// quality_golden.py beside it), tallied in two halves and merged.
func TestQualityGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/quality_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Name    string
			YTrue   []json.RawMessage `json:"y_true"`
			YPred   []json.RawMessage `json:"y_pred"`
			Metrics map[string]float64
		}
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	for _, c := range golden.Cases {
		var halves [2]Quality
		for i := range c.YTrue {
			halves[2*i/len(c.YTrue)].Add(c.YPred[i], c.YTrue[i])
		}
		q := halves[0]
		q.Merge(halves[1])
		for name, want := range c.Metrics {
			got, n, ok := q.Metric(name)
			if !ok || n == 0 || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%s, %s: got %v (%v, over %d), want %v", c.Name, name, got, ok, n, want)
			}
		}
	}
}

// TestQualityClassOverflow: beyond MaxQualityClasses the class counts are
// dropped, in Add and in Merge, and precision is not computed; accuracy
// still is.
func TestQualityClassOverflow(t *testing.T) {
	f := func(name string, q Quality, wantClassMetrics bool) {
		t.Helper()
		if _, _, ok := q.Metric("precision"); ok != wantClassMetrics {
			t.Errorf("%s: precision computed %v, want %v", name, ok, wantClassMetrics)
		}
		if _, n, ok := q.Metric("accuracy"); !ok || n != q.Labelled {
			t.Errorf("%s: accuracy over %d (%v), want over all %d", name, n, ok, q.Labelled)
		}
	}
	add := func(q *Quality, from, to int) {
		for i := from; i < to; i++ {
			v := json.RawMessage(fmt.Sprint(i))
			q.Add(v, v)
		}
	}
	var full, over Quality
	add(&full, 0, MaxQualityClasses)
	f("at the cap", full, true)
	add(&over, 0, MaxQualityClasses+1)
	f("one class over", over, false)
	if over.ClassesDropped != over.Labelled || over.Classes != nil {
		t.Errorf("got %d dropped of %d, %d classes; want all dropped", over.ClassesDropped, over.Labelled, len(over.Classes))
	}
	var a, b Quality
	add(&a, 0, 60)
	add(&b, 60, 120)
	a.Merge(b)
	f("merged over the cap", a, false)
}
