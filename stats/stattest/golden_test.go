package stattest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// goldenFile is written by testdata/generate.py from SciPy and NumPy.
type goldenFile struct {
	Versions    map[string]string `json:"versions"`
	Numeric     []numericCase     `json:"numeric"`
	Categorical []categoricalCase `json:"categorical"`
	Kstwo       [][3]float64      `json:"kstwo"`
}

type numericCase struct {
	Name        string       `json:"name"`
	Ref         []jsonFloat  `json:"ref"`
	Cur         []jsonFloat  `json:"cur"`
	GenRef      *genSpec     `json:"gen_ref"`
	GenCur      *genSpec     `json:"gen_cur"`
	MissingRef  int          `json:"missing_ref"`
	MissingCur  int          `json:"missing_cur"`
	KS          []ksCase     `json:"ks"`
	Wasserstein float64      `json:"wasserstein"`
	Binned      []binnedCase `json:"binned"`
}

type ksCase struct {
	Mode        string    `json:"mode"`
	Alternative string    `json:"alternative"`
	Statistic   float64   `json:"statistic"`
	PValue      jsonFloat `json:"pvalue"` // null: NaN
	Location    float64   `json:"location"`
	Sign        int       `json:"sign"`
	Method      string    `json:"method"`
}

type tableStats struct {
	PSI         float64   `json:"psi"`
	PSIEmptyRef int       `json:"psi_empty_ref"`
	PSIEmptyCur int       `json:"psi_empty_cur"`
	JSDistance  float64   `json:"js_distance"`
	JSExact     float64   `json:"js_divergence_exact"`
	Hellinger   float64   `json:"hellinger"`
	ChiYates    chiResult `json:"chi2_yates_true"`
	ChiPlain    chiResult `json:"chi2_yates_false"`
	GOF         chiResult `json:"gof"`
}

type chiResult struct {
	Statistic jsonFloat `json:"statistic"`
	PValue    float64   `json:"pvalue"`
	DOF       int       `json:"dof"`
}

type binnedCase struct {
	Bins      int       `json:"bins"`
	Edges     []float64 `json:"edges"`
	RefCounts []int     `json:"ref_counts"`
	CurCounts []int     `json:"cur_counts"`
	tableStats
}

type categoricalCase struct {
	Name       string   `json:"name"`
	Labels     []string `json:"labels"`
	RefCounts  []int    `json:"ref_counts"`
	CurCounts  []int    `json:"cur_counts"`
	Ref        []string `json:"ref"`
	Cur        []string `json:"cur"`
	MissingRef int      `json:"missing_ref"`
	MissingCur int      `json:"missing_cur"`
	tableStats
}

// jsonFloat decodes a number, null (NaN) or "inf".
type jsonFloat float64

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		*f = jsonFloat(math.NaN())
	case `"inf"`:
		*f = jsonFloat(math.Inf(1))
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = jsonFloat(v)
	}
	return nil
}

// genSpec is generate.py's gen_column: x_i = shift + scale·g(u_i) with
// u_i = frac(i·step), optionally snapped to levels, g the identity or u².
type genSpec struct {
	N      int      `json:"n"`
	Step   float64  `json:"step"`
	Levels float64  `json:"levels"`
	Shape  string   `json:"shape"`
	Shift  float64  `json:"shift"`
	Scale  *float64 `json:"scale"`
}

func (g genSpec) column() []float64 {
	scale := 1.0
	if g.Scale != nil {
		scale = *g.Scale
	}
	out := make([]float64, g.N)
	for i := range out {
		t := float64(i) * g.Step
		u := t - math.Floor(t)
		if g.Levels != 0 {
			u = math.Floor(float64(u*g.Levels)) / g.Levels
		}
		if g.Shape == "square" {
			u = u * u
		}
		out[i] = g.Shift + float64(scale*u) // float64(): no FMA, as NumPy
	}
	return out
}

// Tolerances against SciPy, relative (see doc.go for why each holds):
const (
	// statistics that are the same floating-point expression as SciPy's.
	tolExact = 0
	// p-values, Wasserstein, PSI, Jensen-Shannon, Hellinger, chi-squared.
	tolRel = 1e-9
	// Jensen-Shannon against scipy: 1e-9 relative plus this absolute slack.
	tolJSAbs = 1e-16
	// Jensen-Shannon divergence against its 50-digit value.
	tolJSExact = 1e-13
	// values below this (subnormal p-values) compare as equal: scipy and
	// gonum round them differently, and no decision depends on them.
	tinyFloor = 1e-300
)

// closeRel reports |got-want| <= rel·|want|; NaN matches NaN, ±Inf itself.
func closeRel(got, want, rel float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) == math.IsNaN(want) && (math.IsNaN(got) || got == want)
	}
	return math.Abs(got-want) <= max(rel*math.Abs(want), tinyFloor)
}

func loadGolden(t testing.TB) goldenFile {
	t.Helper()
	var g goldenFile
	f, err := os.Open("testdata/golden.json")
	if err == nil {
		err = json.NewDecoder(f).Decode(&g)
		f.Close()
	}
	if err != nil {
		t.Fatalf("golden.json: %v", err)
	}
	if len(g.Numeric) == 0 || len(g.Categorical) == 0 || len(g.Kstwo) == 0 {
		t.Fatal("golden.json misses a section")
	}
	return g
}

// stats counts comparisons and their worst relative error per quantity.
type stats map[string]*struct {
	n, exact int
	worst    float64
}

func (s stats) add(what string, got, want float64) {
	e := s[what]
	if e == nil {
		e = &struct {
			n, exact int
			worst    float64
		}{}
		s[what] = e
	}
	e.n++
	if got == want || (math.IsNaN(got) && math.IsNaN(want)) {
		e.exact++
		return
	}
	if math.Abs(want) >= tinyFloor && !math.IsInf(want, 0) {
		e.worst = max(e.worst, math.Abs(got-want)/math.Abs(want))
	}
}

func (s stats) log(t *testing.T) {
	for what, e := range s {
		t.Logf("%-22s %4d values, %4d bit-identical, worst relative error %.3g", what, e.n, e.exact, e.worst)
	}
}

func floats(v []jsonFloat) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func (c numericCase) columns() ([]float64, []float64) {
	if c.GenRef != nil {
		return c.GenRef.column(), c.GenCur.column()
	}
	return floats(c.Ref), floats(c.Cur)
}

var modes = map[string]Mode{"auto": ModeAuto, "exact": ModeExact, "asymptotic": ModeAsymptotic}
var alternatives = map[string]Alternative{"two-sided": TwoSided, "less": Less, "greater": Greater}

// Every comparison is relative to SciPy's value, |got - want| <= tol·|want|,
// with values below 1e-300 (subnormal p-values, which SciPy and gonum round
// differently) compared as equal:
//
//   - KS statistic and location: 0 (bit-identical).
//   - KS p-values: 1e-9. Achieved: exact two-sided bit-identical; exact
//     one-sided and asymptotic within 5e-13; kstwo.sf within 2e-13 on a
//     grid over every branch and n up to 250,000.
//   - Wasserstein, PSI, Hellinger, chi-squared statistics and p-values:
//     1e-9. Achieved: 1e-14 for Wasserstein, 5e-16 for PSI and Hellinger,
//     3e-16 for chi-squared statistics and 3e-14 for their p-values.
//   - Jensen-Shannon: 1e-9 plus 1e-16 absolute against SciPy, and 1e-13
//     against a 50-digit value. SciPy sums p·log(p/m) and q·log(q/m)
//     separately, and the two sums cancel for nearly equal distributions
//     (1M vs 100k values from one distribution: SciPy is 3e-9 off in
//     relative terms); JensenShannon sums each cell's non-negative share,
//     by a series when p ≈ q, and is within 1e-14 of the 50-digit value.
func TestGoldenNumeric(t *testing.T) {
	g := loadGolden(t)
	t.Logf("golden: scipy %s, numpy %s", g.Versions["scipy"], g.Versions["numpy"])
	st := stats{}
	for _, c := range g.Numeric {
		t.Run(c.Name, func(t *testing.T) {
			ref, cur := c.columns()
			d, err := NewNumeric(ref, cur)
			if err != nil {
				t.Fatalf("NewNumeric: %v", err)
			}
			f := func(what string, got, want, rel float64) {
				t.Helper()
				st.add(what, got, want)
				if !closeRel(got, want, rel) {
					t.Errorf("%s: got %.17g, want %.17g (rel tol %g)", what, got, want, rel)
				}
			}
			if got := d.Counts(); got.MissingRef != c.MissingRef || got.MissingCur != c.MissingCur {
				t.Errorf("missing: got %d/%d, want %d/%d", got.MissingRef, got.MissingCur, c.MissingRef, c.MissingCur)
			}
			for _, k := range c.KS {
				name := fmt.Sprintf("ks %s %s", k.Mode, k.Alternative)
				r, err := d.KS(modes[k.Mode], alternatives[k.Alternative])
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				f(name+" statistic", r.Statistic, k.Statistic, tolExact)
				f(name+" pvalue", r.PValue, float64(k.PValue), tolRel)
				f(name+" location", r.Location, k.Location, tolExact)
				if r.Sign != k.Sign || r.Method.String() != k.Method {
					t.Errorf("%s: got sign %d method %v, want %d %s", name, r.Sign, r.Method, k.Sign, k.Method)
				}
			}
			f("wasserstein", d.Wasserstein().Value, c.Wasserstein, tolRel)
			for _, b := range c.Binned {
				tb := d.Bin(b.Bins)
				if fmt.Sprint(tb.Edges) != fmt.Sprint(b.Edges) {
					t.Errorf("bins %d: edges: got %v, want %v", b.Bins, tb.Edges, b.Edges)
				}
				if fmt.Sprint(tb.Ref, tb.Cur) != fmt.Sprint(b.RefCounts, b.CurCounts) {
					t.Errorf("bins %d: counts: got %v %v, want %v %v", b.Bins, tb.Ref, tb.Cur, b.RefCounts, b.CurCounts)
				}
				checkTable(t, f, tb, b.tableStats)
			}
		})
	}
	st.log(t)
}

func TestGoldenCategorical(t *testing.T) {
	g := loadGolden(t)
	st := stats{}
	for _, c := range g.Categorical {
		t.Run(c.Name, func(t *testing.T) {
			var tb Table
			var err error
			if c.Ref != nil {
				tb, err = NewCategorical(c.Ref, c.Cur)
			} else {
				tb, err = FromCounts(c.Labels, c.RefCounts, c.CurCounts)
			}
			if err != nil {
				t.Fatalf("table: %v", err)
			}
			if fmt.Sprint(tb.Labels) != fmt.Sprint(c.Labels) || tb.MissingRef != c.MissingRef || tb.MissingCur != c.MissingCur {
				t.Errorf("table: got labels %v missing %d/%d, want %v %d/%d",
					tb.Labels, tb.MissingRef, tb.MissingCur, c.Labels, c.MissingRef, c.MissingCur)
			}
			f := func(what string, got, want, rel float64) {
				t.Helper()
				st.add(what, got, want)
				if !closeRel(got, want, rel) {
					t.Errorf("%s: got %.17g, want %.17g (rel tol %g)", what, got, want, rel)
				}
			}
			checkTable(t, f, tb, c.tableStats)
		})
	}
	st.log(t)
}

func checkTable(t *testing.T, f func(string, float64, float64, float64), tb Table, want tableStats) {
	t.Helper()
	psi := tb.PSI(0)
	f("psi", psi.Value, want.PSI, tolRel)
	if psi.EmptyRef != want.PSIEmptyRef || psi.EmptyCur != want.PSIEmptyCur {
		t.Errorf("psi empty cells: got %d/%d, want %d/%d", psi.EmptyRef, psi.EmptyCur, want.PSIEmptyRef, want.PSIEmptyCur)
	}
	js := tb.JensenShannon()
	// scipy's two sums cancel for nearly equal distributions: its error is
	// about 2^-53 of the summed terms (at most 1), so the comparison with it
	// allows tolJSAbs absolutely; the 50-digit value bounds the error itself.
	f("js divergence (scipy)", js.Divergence, want.JSDistance*want.JSDistance, tolRel+tolJSAbs/max(want.JSExact, 1e-300))
	f("js distance² (scipy)", js.Distance*js.Distance, want.JSDistance*want.JSDistance, tolRel+tolJSAbs/max(want.JSExact, 1e-300))
	f("js divergence (exact)", js.Divergence, want.JSExact, tolJSExact)
	f("hellinger", tb.Hellinger().Value, want.Hellinger, tolRel)
	for _, c := range []struct {
		name string
		got  ChiSquareResult
		want chiResult
	}{
		{"chi2 yates", tb.ChiSquare(true), want.ChiYates},
		{"chi2 no yates", tb.ChiSquare(false), want.ChiPlain},
		{"goodness of fit", tb.GoodnessOfFit(), want.GOF},
	} {
		f(c.name+" statistic", c.got.Statistic, float64(c.want.Statistic), tolRel)
		f(c.name+" pvalue", c.got.PValue, c.want.PValue, tolRel)
		if c.got.DOF != c.want.DOF {
			t.Errorf("%s dof: got %d, want %d", c.name, c.got.DOF, c.want.DOF)
		}
	}
}

// TestGoldenKolmogorov checks the one-sample two-sided Kolmogorov survival
// function behind the asymptotic p-value on a grid over all its branches.
func TestGoldenKolmogorov(t *testing.T) {
	g := loadGolden(t)
	st := stats{}
	for _, r := range g.Kstwo {
		n, x, want := int(r[0]), r[1], r[2]
		got := kolmogorovSF(n, x)
		st.add("kstwo.sf", got, want)
		if !closeRel(got, want, tolRel) {
			t.Errorf("kolmogorovSF(%d, %.17g): got %.17g, want %.17g", n, x, got, want)
		}
	}
	st.log(t)
}
