package stattest

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := func(name string, a []float64) {
		t.Helper()
		want := slices.Clone(a)
		slices.Sort(want)
		sortFloats(a)
		for i := range a {
			if a[i] != want[i] {
				t.Fatalf("%s: index %d: got %v, want %v", name, i, a[i], want[i])
			}
		}
	}
	big := make([]float64, 50000)
	for i := range big {
		big[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	}
	f("normal magnitudes", big)
	ties := make([]float64, 10000)
	for i := range ties {
		ties[i] = float64(rng.IntN(7) - 3)
	}
	ties[5], ties[6] = math.Copysign(0, -1), 0
	f("ties and signed zeros", ties)
	f("constant", slices.Repeat([]float64{4.5}, 5000))
	f("short", []float64{3, -1, 2})
	rounded := make([]float64, 200000)
	for i := range rounded {
		rounded[i] = math.Round(rng.NormFloat64()*1000) / 1000
	}
	f("a million values on few levels", slices.Concat(rounded, rounded, rounded, rounded, rounded))
	clustered := make([]float64, 300000)
	for i := range clustered {
		clustered[i] = float64(rng.IntN(3)) + rng.Float64()*1e-9
	}
	f("clusters far apart", clustered)
	f("sorted but one", append(slices.Repeat([]float64{1}, 5000), 0))
	descending := make([]float64, 20000)
	for i := range descending {
		descending[i] = float64(-i)
	}
	f("descending", descending)
	f("extremes", append(slices.Repeat([]float64{1}, 3000), math.MaxFloat64, -math.MaxFloat64, 5e-324, -5e-324))
}

// TestTakeSample: the in-place preparation gives NewSample's sample, in
// the column's own memory.
func TestTakeSample(t *testing.T) {
	nan := math.NaN()
	f := func(col []float64) {
		t.Helper()
		want, err := NewSample(col)
		if err != nil {
			t.Fatalf("NewSample(%v): got %v, want no error", col, err)
		}
		got, err := TakeSample(col)
		if err != nil {
			t.Fatalf("TakeSample: got %v, want no error", err)
		}
		if !slices.Equal(got.Sorted, want.Sorted) || got.Missing != want.Missing {
			t.Errorf("got %v with %d missing, want %v with %d", got.Sorted, got.Missing, want.Sorted, want.Missing)
		}
		if len(got.Sorted) > 0 && &got.Sorted[0] != &col[0] {
			t.Error("got a copy, want the column's memory")
		}
	}
	f([]float64{3, nan, 1, 2, nan})
	f([]float64{nan, nan})
	f([]float64{})
	long := make([]float64, 10000)
	for i := range long {
		long[i] = float64((i * 7919) % 10007)
	}
	long[17] = nan
	f(long)
	if _, err := TakeSample([]float64{1, math.Inf(1)}); !errors.Is(err, ErrInfinite) {
		t.Errorf("TakeSample with +Inf: got %v, want ErrInfinite", err)
	}
}

func TestMissingAndInvalid(t *testing.T) {
	nan := math.NaN()
	d, err := NewNumeric([]float64{1, nan, 2, nan}, []float64{nan, 3})
	if err != nil {
		t.Fatalf("NewNumeric: got %v, want no error", err)
	}
	if got, want := d.Counts(), (Counts{NRef: 2, NCur: 1, MissingRef: 2, MissingCur: 1}); got != want {
		t.Errorf("counts: got %+v, want %+v", got, want)
	}
	r, err := d.KS(ModeAuto, TwoSided)
	if err != nil || r.Counts != d.Counts() {
		t.Errorf("KS counts: got %+v (err %v), want %+v", r.Counts, err, d.Counts())
	}

	for _, c := range []struct {
		name     string
		ref, cur []float64
		kind     error
		side     string
	}{
		{"all NaN reference", []float64{nan, nan}, []float64{1}, ErrEmpty, "reference"},
		{"empty current", []float64{1}, nil, ErrEmpty, "current"},
		{"+Inf reference", []float64{1, math.Inf(1)}, []float64{1}, ErrInfinite, "reference"},
		{"-Inf current", []float64{1}, []float64{math.Inf(-1)}, ErrInfinite, "current"},
	} {
		_, err := KS(c.ref, c.cur, ModeAuto)
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) || !errors.Is(err, c.kind) || ie.Sample != c.side {
			t.Errorf("%s: got %v, want an *InputError on the %s sample wrapping ErrInvalid and %v", c.name, err, c.side, c.kind)
			continue
		}
		if err := WithFeature(err, "age"); !strings.Contains(err.Error(), `feature "age"`) {
			t.Errorf("%s: WithFeature: got %q, want it to name the feature", c.name, err)
		}
	}
}

func TestCategoricalInput(t *testing.T) {
	tb, err := NewCategorical([]string{"b", "a", "", "b"}, []string{"c", "", ""})
	if err != nil {
		t.Fatalf("NewCategorical: %v", err)
	}
	if got, want := strings.Join(tb.Labels, ","), "a,b,c"; got != want {
		t.Errorf("labels: got %s, want %s", got, want)
	}
	if got, want := (Counts{NRef: 3, NCur: 1, MissingRef: 1, MissingCur: 2}), tb.Counts; got != want {
		t.Errorf("counts: got %+v, want %+v", tb.Counts, want)
	}
	if g := tb.GoodnessOfFit(); !math.IsInf(g.Statistic, 1) || g.PValue != 0 || g.Unseen != 1 {
		t.Errorf("goodness of fit with an unseen category: got %+v, want +Inf, p 0, 1 unseen", g)
	}
	if _, err := NewCategorical([]string{"", ""}, []string{"a"}); !errors.Is(err, ErrEmpty) {
		t.Errorf("all-missing reference: got %v, want ErrEmpty", err)
	}
	for _, c := range []struct {
		name     string
		labels   []string
		ref, cur []int
	}{
		{"length mismatch", []string{"a", "b"}, []int{1}, []int{1, 2}},
		{"negative", []string{"a"}, []int{-1}, []int{1}},
		{"zero total", []string{"a"}, []int{0}, []int{1}},
	} {
		if _, err := FromCounts(c.labels, c.ref, c.cur); !errors.Is(err, ErrInvalid) {
			t.Errorf("FromCounts %s: got %v, want an error wrapping ErrInvalid", c.name, err)
		}
	}
}

func TestZeroValues(t *testing.T) {
	d, err := NewNumeric([]float64{1, 2, 3, 4}, []float64{2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	var mode Mode
	var alt Alternative
	r, err := d.KS(mode, alt)
	if err != nil || r.Method != ModeExact || r.Alternative != TwoSided {
		t.Errorf("zero Mode and Alternative: got %+v (err %v), want exact two-sided", r, err)
	}
	if got, want := d.Bin(0).Cells(), DefaultBins; got != want {
		t.Errorf("Bin(0): got %d cells, want %d", got, want)
	}
	if p := d.Bin(0).PSI(0); p.Value < 0 {
		t.Errorf("PSI(0): got %v, want >= 0", p.Value)
	}
	if _, err := (Numeric{}).KS(ModeAuto, TwoSided); !errors.Is(err, ErrEmpty) {
		t.Errorf("zero Numeric: got %v, want ErrEmpty", err)
	}
	if _, err := d.KS(Mode(7), TwoSided); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad mode: got %v, want ErrInvalid", err)
	}
}

// TestKSSymmetry checks that swapping the samples swaps less and greater
// and keeps the two-sided result.
func TestKSSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float64, 300), make([]float64, 170)
	for i := range a {
		a[i] = math.Round(rng.NormFloat64()*10) / 10
	}
	for i := range b {
		b[i] = math.Round((rng.NormFloat64()+0.3)*10) / 10
	}
	ab, _ := NewNumeric(a, b)
	ba, _ := NewNumeric(b, a)
	for _, mode := range []Mode{ModeExact, ModeAsymptotic} {
		f := func(x, y Alternative) {
			t.Helper()
			r1, _ := ab.KS(mode, x)
			r2, _ := ba.KS(mode, y)
			if r1.Statistic != r2.Statistic || math.Abs(r1.PValue-r2.PValue) > 1e-12*r1.PValue {
				t.Errorf("%v %v/%v: got %v p %v, want %v p %v", mode, x, y, r1.Statistic, r1.PValue, r2.Statistic, r2.PValue)
			}
		}
		f(TwoSided, TwoSided)
		f(Less, Greater)
		f(Greater, Less)
	}
}

// TestExtremesAgainstMerge compares the sparse search for the ECDF
// extremes with a scan of every pooled value.
func TestExtremesAgainstMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n1, n2 := 1+rng.IntN(60), 1+rng.IntN(60)
		levels := 1 + rng.IntN(30)
		col := func(n int, shift int) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.IntN(levels) + rng.IntN(shift+1))
			}
			sortFloats(v)
			return v
		}
		a, b := col(n1, rng.IntN(3)), col(n2, rng.IntN(3))
		got, want := ecdfExtremes(a, b), scanExtremes(a, b)
		if got != want {
			t.Fatalf("trial %d: ref %v cur %v: got %+v, want %+v", trial, a, b, got, want)
		}
	}
}

// scanExtremes evaluates F_ref - F_cur at every pooled value.
func scanExtremes(a, b []float64) extremes {
	f1, f2 := float64(len(a)), float64(len(b))
	hi := tracker{best: math.Inf(-1)}
	lo := tracker{best: math.Inf(1), negative: true}
	m := merge{a: a, b: b}
	for m.next() {
		diff := float64(m.i)/f1 - float64(m.j)/f2
		hi.see(diff, m.v, m.inRef)
		lo.see(diff, m.v, m.inRef)
	}
	return extremes{max: hi.best, min: lo.best, maxLoc: hi.loc(), minLoc: lo.loc()}
}

// TestSortSkewed sorts data whose range is set by a few outliers, so that
// one top-level bucket holds almost everything and is partitioned again.
func TestSortSkewed(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := make([]float64, 300000)
	for i := range a {
		a[i] = rng.Float64()
	}
	a[7], a[99] = 1e300, -1e300
	want := slices.Clone(a)
	slices.Sort(want)
	sortFloats(a)
	if !slices.Equal(a, want) {
		t.Fatal("skewed input: got an unsorted result, want slices.Sort's order")
	}
}
