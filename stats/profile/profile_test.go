package profile

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vigilhq/vigil/stats/quantile"
	"github.com/vigilhq/vigil/stats/stattest"
)

// rows makes n documents: x normal(mu, 1), y categorical with a shifted
// share of "b", z sometimes null or absent, w an object.
func rows(r *rand.Rand, n int, mu, shareB float64) ([]json.RawMessage, []float64, []string) {
	docs := make([]json.RawMessage, n)
	xs, ys := make([]float64, n), make([]string, n)
	for i := range docs {
		xs[i] = mu + r.NormFloat64()
		ys[i] = "a"
		if r.Float64() < shareB {
			ys[i] = "b"
		}
		z := `,"z":null`
		if i%3 == 0 {
			z = ""
		}
		docs[i] = json.RawMessage(fmt.Sprintf(`{"x":%v,"y":%q%s,"w":{"k":1}}`, xs[i], ys[i], z))
	}
	return docs, xs, ys
}

func profileOf(docs []json.RawMessage) *Profile {
	var p Profile
	for _, d := range docs {
		p.Add(d)
	}
	return &p
}

// TestCompareWithinBound compares sketch-based results with the exact
// ones on the raw values: D̂ ≤ D ≤ D̂ + bound; categorical statistics
// equal; missing values counted.
func TestCompareWithinBound(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for _, c := range []struct {
		mu, share float64
		n1, n2    int
	}{{0, 0.3, 20_000, 5_000}, {0.1, 0.35, 50_000, 20_000}, {1, 0.6, 5_000, 5_000}, {0, 0.3, 30, 2_000}} {
		refDocs, refX, refY := rows(r, c.n1, 0, 0.3)
		curDocs, curX, curY := rows(r, c.n2, c.mu, c.share)
		results, skipped := Compare(profileOf(refDocs), profileOf(curDocs))
		if len(results) != 2 || len(skipped) != 2 {
			t.Fatalf("got %d results, skipped %v; want x and y compared, w and z skipped", len(results), skipped)
		}
		x, y := results[0], results[1]
		exact, err := stattest.KS(refX, curX, stattest.ModeAuto)
		if err != nil {
			t.Fatal(err)
		}
		if x.Kind != Numeric || x.KS.Statistic > exact.Statistic+1e-12 || exact.Statistic > x.KS.Statistic+x.KSBound+1e-12 {
			t.Errorf("mu %v: got D̂ %v bound %v, exact D %v: want D̂ ≤ D ≤ D̂+bound", c.mu, x.KS.Statistic, x.KSBound, exact.Statistic)
		}
		if x.KSBound > 0.02 && c.n1 >= 1000 {
			t.Errorf("got bound %v for normal data and a 1%% sketch, want below 0.02", x.KSBound)
		}
		if _, p := stattest.KSPValue(c.n1, c.n2, x.KS.Statistic, stattest.ModeAuto, stattest.TwoSided); p != x.KS.PValue {
			t.Errorf("got p %v, want KSPValue's %v", x.KS.PValue, p)
		}
		wantY, err := stattest.NewCategorical(refY, curY)
		if err != nil {
			t.Fatal(err)
		}
		if y.Kind != Categorical || !reflect.DeepEqual(y.Table.ChiSquare(true), wantY.ChiSquare(true)) || y.Table.PSI(0) != wantY.PSI(0) {
			t.Errorf("got categorical %+v, want the exact table %+v", y.Table, wantY)
		}
		if x.MissingRef != 0 || y.MissingCur != 0 {
			t.Errorf("got missing %d, %d, want 0", x.MissingRef, y.MissingCur)
		}
	}
}

// TestBinsAreExact checks the binned table against the raw values put in
// the same buckets: each bin holds exactly the values of its buckets, and
// the bins cut the reference near its deciles.
func TestBinsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	refDocs, refX, _ := rows(r, 10_000, 0, 0.3)
	curDocs, curX, _ := rows(r, 4_000, 0.5, 0.3)
	results, _ := Compare(profileOf(refDocs), profileOf(curDocs))
	tab := results[0].Table
	if len(tab.Ref) != 10 {
		t.Fatalf("got %d bins, want 10", len(tab.Ref))
	}
	// Upper bucket order of each bin, from the reference's cumulative
	// counts: recount raw values into bins by their bucket.
	order := func(v float64) int64 {
		var s quantile.Sketch
		s.Add(v)
		for b := range s.Buckets() {
			return b.Order
		}
		return 0
	}
	var ref quantile.Sketch
	for _, v := range refX {
		ref.Add(v)
	}
	var uppers []int64
	var cum uint64
	for b := range ref.Buckets() {
		cum += b.Count
		if len(uppers) < 9 && cum < ref.Count() && cum*10 >= uint64(len(uppers)+1)*ref.Count() {
			uppers = append(uppers, b.Order)
		}
	}
	count := func(xs []float64) []int {
		out := make([]int, 10)
		for _, v := range xs {
			o, i := order(v), 0
			for i < len(uppers) && o > uppers[i] {
				i++
			}
			out[i]++
		}
		return out
	}
	if got, want := tab.Ref, count(refX); !reflect.DeepEqual(got, want) {
		t.Errorf("got reference bins %v, want %v", got, want)
	}
	if got, want := tab.Cur, count(curX); !reflect.DeepEqual(got, want) {
		t.Errorf("got current bins %v, want %v", got, want)
	}
	for i, n := range tab.Ref {
		if share := float64(n) / 10_000; math.Abs(share-0.1) > 0.02 {
			t.Errorf("got bin %d with %.3f of the reference, want about 0.1", i, share)
		}
	}
}

func TestMergeAndEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	docs, _, _ := rows(r, 3_000, 0, 0.3)
	whole := profileOf(docs)
	a, b := profileOf(docs[:1000]), profileOf(docs[1000:])
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Profile
	if err := json.Unmarshal(text, &back); err != nil {
		t.Fatal(err)
	}
	wantText, _ := json.Marshal(whole)
	if gotText, _ := json.Marshal(&back); string(gotText) != string(wantText) {
		t.Errorf("got %s after merge and round trip, want %s", gotText, wantText)
	}
	if z := back.Features["z"]; z.Nulls != 2000 || back.Rows-z.Values()-z.Nulls != 1000 {
		t.Errorf("got z nulls %d, absent %d; want 2000 and 1000", z.Nulls, back.Rows-z.Values()-z.Nulls)
	}
}

func TestCaps(t *testing.T) {
	var p Profile
	for i := range MaxCategories + 5 {
		p.Add(json.RawMessage(fmt.Sprintf(`{"c":"v%d"}`, i)))
	}
	if c := p.Features["c"]; len(c.Categories) != MaxCategories || c.Other != 5 {
		t.Errorf("got %d categories, other %d; want %d and 5", len(c.Categories), c.Other, MaxCategories)
	}
	var wide Profile
	var doc []byte
	doc = append(doc, '{')
	for i := range MaxFeatures + 3 {
		doc = fmt.Appendf(doc, `"f%d":1,`, i)
	}
	doc = append(doc, `"last":1}`...)
	wide.Add(doc)
	if len(wide.Features) != MaxFeatures || wide.Dropped != 4 {
		t.Errorf("got %d features, %d dropped; want %d and 4", len(wide.Features), wide.Dropped, MaxFeatures)
	}
}

// TestAddColumn: a profile built column by column equals one built row by
// row from the same values.
func TestAddColumn(t *testing.T) {
	rows := []string{`{"x":1,"c":"a"}`, `{"x":2.5,"c":null}`, `{"x":"n/a","c":"b"}`, `{"x":[1],"c":true}`}
	var byRow, byColumn Profile
	cols := map[string][]json.RawMessage{}
	for _, r := range rows {
		byRow.Add(json.RawMessage(r))
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			cols[k] = append(cols[k], v)
		}
	}
	for k, vs := range cols {
		byColumn.AddColumn(k, vs)
	}
	a, _ := json.Marshal(&byRow)
	b, _ := json.Marshal(&byColumn)
	if string(a) != string(b) {
		t.Errorf("got %s by column, want %s as by row", b, a)
	}
}
