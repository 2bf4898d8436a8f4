package drift

import (
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/stats/stattest"
)

// TestMethodChoice: the method comes from the request, else the feature's
// configuration, else the type; the result says which and how the type
// was found.
func TestMethodChoice(t *testing.T) {
	ref := map[string]any{"num": []any{1, 2, 3, 4}, "str": []any{"a", "b", "a"}, "flag": []any{true, false, true}}
	cur := map[string]any{"num": []any{2, 3, 4, 5}, "str": []any{"a", "b"}, "flag": []any{false, false}}
	psiForNum := Default("o", "m1")
	psiForNum.Features = map[string]FeatureConfig{"num": {Method: PSI}, "str": {Method: JS}}
	asCategories := Default("o", "m1")
	asCategories.Features = map[string]FeatureConfig{"num": {Type: Categorical}}
	type choice struct {
		method       Method
		methodSource string
		typ          FeatureType
		typeSource   string
	}
	for _, tc := range []struct {
		name   string
		config map[string]any
		cfg    Config
		want   map[string]choice
	}{
		{"by type", nil, Default("o", "m1"), map[string]choice{
			"num":  {KS, "default", Numeric, "inferred"},
			"str":  {ChiSquared, "default", Categorical, "inferred"},
			"flag": {ChiSquared, "default", Categorical, "inferred"}}},
		{"feature configs", nil, psiForNum, map[string]choice{
			"num":  {PSI, "feature_config", Numeric, "inferred"},
			"str":  {JS, "feature_config", Categorical, "inferred"},
			"flag": {ChiSquared, "default", Categorical, "inferred"}}},
		{"request over feature configs", map[string]any{"method": "psi"}, psiForNum, map[string]choice{
			"num":  {PSI, "request", Numeric, "inferred"},
			"str":  {PSI, "request", Categorical, "inferred"},
			"flag": {PSI, "request", Categorical, "inferred"}}},
		{"numbers as categories", nil, asCategories, map[string]choice{
			"num":  {ChiSquared, "default", Categorical, "feature_config"},
			"str":  {ChiSquared, "default", Categorical, "inferred"},
			"flag": {ChiSquared, "default", Categorical, "inferred"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, body(t, ref, cur, tc.config), tc.cfg)
			for name, want := range tc.want {
				f := res.Features[name]
				if got := (choice{f.Method, f.MethodSource, f.Type, f.TypeSource}); got != want {
					t.Errorf("%s: got %+v, want %+v", name, got, want)
				}
			}
		})
	}
}

// TestScores checks each method's drift_score, p_value and threshold use
// on data whose answer is known.
func TestScores(t *testing.T) {
	same := normal(1, 2000, 0)
	shifted := normal(2, 2000, 1)
	f := func(method string, ref, cur []float64, threshold float64) FeatureResult {
		t.Helper()
		cfg := map[string]any{"method": method}
		if threshold > 0 {
			cfg["threshold"] = threshold
		}
		res := mustRun(t, body(t, map[string]any{"x": ref}, map[string]any{"x": cur}, cfg), Default("o", "m1"))
		return res.Features["x"]
	}
	t.Run("ks_test", func(t *testing.T) {
		r := f("ks_test", same, shifted, 0)
		want, _ := stattest.KS(same, shifted, stattest.ModeAuto)
		if r.DriftScore != want.Statistic || r.Statistic != want.Statistic || r.PValue == nil || *r.PValue != want.PValue {
			t.Errorf("got score %v, statistic %v, p %v, want D %v and p %v", r.DriftScore, r.Statistic, r.PValue, want.Statistic, want.PValue)
		}
		if !r.DriftDetected || r.Threshold != 0.05 {
			t.Errorf("got drift %v at threshold %v, want true at the medium preset's 0.05", r.DriftDetected, r.Threshold)
		}
		if r := f("ks_test", same[:1000], same[1000:], 0); r.DriftDetected {
			t.Errorf("two halves of one sample: got drift (p %v), want none", *r.PValue)
		}
	})
	t.Run("p-value against the threshold", func(t *testing.T) {
		// Two close samples: p lies between 1e-6 and 0.5, so the
		// threshold decides.
		a, b := normal(3, 300, 0), normal(4, 300, 0.2)
		r := f("ks_test", a, b, 0.5)
		p := *r.PValue
		if p < 1e-6 || p > 0.5 {
			t.Fatalf("got p %v, want a p-value the test can straddle", p)
		}
		if r := f("ks_test", a, b, min(0.99, p*1.01)); !r.DriftDetected {
			t.Errorf("threshold above p %v: got no drift, want drift", p)
		}
		if r := f("ks_test", a, b, p*0.99); r.DriftDetected {
			t.Errorf("threshold below p %v: got drift, want none", p)
		}
	})
	t.Run("psi and js against the threshold", func(t *testing.T) {
		for _, m := range []string{"psi", "js_divergence"} {
			r := f(m, same, shifted, 0)
			if r.PValue != nil {
				t.Errorf("%s: got p-value %v, want null", m, *r.PValue)
			}
			if r := f(m, same, shifted, r.DriftScore); !r.DriftDetected {
				t.Errorf("%s: threshold equal to the score %v: got no drift, want drift (score >= threshold)", m, r.DriftScore)
			}
			if r := f(m, same, shifted, math.Nextafter(r.DriftScore, 2)); r.DriftDetected {
				t.Errorf("%s: threshold just above the score %v: got drift, want none", m, r.DriftScore)
			}
		}
	})
	t.Run("numeric bins", func(t *testing.T) {
		d, _ := stattest.NewNumeric(same, shifted)
		table := d.Bin(0)
		if r := f("psi", same, shifted, 0); r.DriftScore != table.PSI(0).Value {
			t.Errorf("psi: got %v, want %v", r.DriftScore, table.PSI(0).Value)
		}
		if r := f("js_divergence", same, shifted, 0); r.DriftScore != table.JensenShannon().Distance {
			t.Errorf("js_divergence: got %v, want %v", r.DriftScore, table.JensenShannon().Distance)
		}
		chi := table.ChiSquare(true)
		r := f("chi_squared", same, shifted, 0)
		if v := math.Sqrt(chi.Statistic / 4000); r.DriftScore != v || r.Statistic != chi.Statistic || *r.PValue != chi.PValue {
			t.Errorf("chi_squared: got V %v, χ² %v, p %v, want %v, %v, %v", r.DriftScore, r.Statistic, *r.PValue, v, chi.Statistic, chi.PValue)
		}
	})
}

// TestCategoricalMatchesStattest: detect's categorical results are
// stattest's on the same values, categories seen on one side only included.
func TestCategoricalMatchesStattest(t *testing.T) {
	ref := categories(5, 3000, []string{"red", "green", "blue"}, []float64{5, 3, 2})
	cur := categories(6, 800, []string{"red", "green", "blue", "violet"}, []float64{3, 3, 3, 1})
	table, err := stattest.NewCategorical(ref, cur)
	if err != nil {
		t.Fatal(err)
	}
	chi := table.ChiSquare(true)
	for _, tc := range []struct {
		method    string
		score     float64
		statistic float64
		p         *float64
	}{
		{"chi_squared", math.Sqrt(chi.Statistic / 3800), chi.Statistic, &chi.PValue},
		{"psi", table.PSI(0).Value, table.PSI(0).Value, nil},
		{"js_divergence", table.JensenShannon().Distance, table.JensenShannon().Distance, nil},
	} {
		res := mustRun(t, body(t, map[string]any{"c": ref}, map[string]any{"c": cur}, map[string]any{"method": tc.method}), Default("o", "m1"))
		r := res.Features["c"]
		if r.DriftScore != tc.score || r.Statistic != tc.statistic || (tc.p == nil) != (r.PValue == nil) || (tc.p != nil && *r.PValue != *tc.p) {
			t.Errorf("%s: got score %v, statistic %v, p %v, want %v, %v, %v", tc.method, r.DriftScore, r.Statistic, r.PValue, tc.score, tc.statistic, tc.p)
		}
	}
}

// TestSeverity: a detected drift is graded by its score with the
// configuration's cutoffs; an undetected one is low.
func TestSeverity(t *testing.T) {
	for _, tc := range []struct {
		preset string
		score  float64
		want   Severity
	}{
		{"medium", 0.05, Low}, {"medium", 0.1, Medium}, {"medium", 0.29, Medium}, {"medium", 0.3, High},
		{"low", 0.14, Low}, {"low", 0.15, Medium}, {"low", 0.39, Medium}, {"low", 0.4, High},
		{"high", 0.04, Low}, {"high", 0.05, Medium}, {"high", 0.2, High},
	} {
		p, _ := PresetNamed(tc.preset)
		if got := p.Thresholds.Severity.Grade(tc.score); got != tc.want {
			t.Errorf("%s preset, score %v: got %s, want %s", tc.preset, tc.score, got, tc.want)
		}
	}
	// End to end: D = 1 for disjoint samples (p = 0.1 with three values a
	// side, so the threshold is raised); a psi threshold of 10 keeps the
	// same data from drifting, so it is low.
	ref, cur := map[string]any{"x": []float64{1, 2, 3}}, map[string]any{"x": []float64{7, 8, 9}}
	cfg := Default("o", "m1")
	res := mustRun(t, body(t, ref, cur, map[string]any{"threshold": 0.9}), cfg)
	if f := res.Features["x"]; !f.DriftDetected || f.DriftScore != 1 || f.Severity != High || res.Severity != High {
		t.Errorf("disjoint: got drift %v, score %v, severity %s (overall %s), want true, 1, high, high", f.DriftDetected, f.DriftScore, f.Severity, res.Severity)
	}
	res = mustRun(t, body(t, ref, cur, map[string]any{"method": "psi", "threshold": 10}), cfg)
	if f := res.Features["x"]; f.DriftDetected || f.Severity != Low || res.Severity != Low {
		t.Errorf("below threshold: got drift %v, severity %s (overall %s), want false, low, low", f.DriftDetected, f.Severity, res.Severity)
	}
	cfg.Thresholds.Severity = Cutoffs{Medium: 0.5, High: 2}
	cfg.Thresholds.KS = 0.9
	res = mustRun(t, body(t, ref, cur, nil), cfg)
	if f := res.Features["x"]; f.Severity != Medium {
		t.Errorf("model cutoffs 0.5 and 2, score 1: got %s, want medium", f.Severity)
	}
}

// TestOverall: the overall score is the share of drifted features;
// disabled features are skipped.
func TestOverall(t *testing.T) {
	same, shifted := normal(7, 500, 0), normal(8, 500, 3)
	ref := map[string]any{"a": same, "b": same, "c": same, "d": same}
	cur := map[string]any{"a": shifted, "b": same, "c": same, "d": shifted}
	cfg := Default("o", "m1")
	off := false
	cfg.Features = map[string]FeatureConfig{"d": {Enabled: &off}}
	res := mustRun(t, body(t, ref, cur, nil), cfg)
	if !res.DriftDetected || res.OverallDriftScore != 1.0/3 || len(res.Features) != 3 || !slices.Equal(res.Skipped, []string{"d"}) {
		t.Errorf("got drift %v, overall %v, %d features, skipped %v, want true, 1/3, 3, [d]",
			res.DriftDetected, res.OverallDriftScore, len(res.Features), res.Skipped)
	}
	res = mustRun(t, body(t, map[string]any{"b": same}, map[string]any{"b": same}, nil), Default("o", "m1"))
	if res.DriftDetected || res.OverallDriftScore != 0 || res.Severity != Low || res.ModelID != "m1" || res.Timestamp.IsZero() {
		t.Errorf("no drift: got %+v", res)
	}
}

// TestMissing: null, "" and NaN are left out and counted.
func TestMissing(t *testing.T) {
	res := mustRun(t, `{"model_id": "m1",
		"reference_data": {"x": [1, null, 2, NaN, 3], "c": ["a", "", null, "b"]},
		"current_data":   {"x": [null, 4, 5], "c": ["a", "a", NaN]}}`, Default("o", "m1"))
	for name, want := range map[string][2]Sides{"x": {{3, 2}, {2, 1}}, "c": {{2, 2}, {2, 1}}} {
		f := res.Features[name]
		if f.SampleSize != want[0] || f.Missing != want[1] {
			t.Errorf("%s: got sample %+v, missing %+v, want %+v, %+v", name, f.SampleSize, f.Missing, want[0], want[1])
		}
	}
	want, _ := stattest.KS([]float64{1, 2, 3}, []float64{4, 5}, stattest.ModeAuto)
	if got := res.Features["x"]; *got.PValue != want.PValue {
		t.Errorf("x without its missing values: got p %v, want %v", *got.PValue, want.PValue)
	}
}

// TestDetectRefuses: every problem with the values is a 422 naming the
// array, or a 413 past the value limit.
func TestDetectRefuses(t *testing.T) {
	numericOnly := Default("o", "m1")
	numericOnly.Features = map[string]FeatureConfig{"c": {Type: Numeric}}
	for _, tc := range []struct {
		name, ref, cur string
		config         string
		cfg            Config
		field          string
	}{
		{"empty reference", `[]`, `[1]`, ``, Config{}, "reference_data.x"},
		{"only nulls", `[1]`, `[null, NaN, null]`, ``, Config{}, "current_data.x"},
		{"only blanks", `["", null]`, `["a"]`, ``, Config{}, "reference_data.x"},
		{"numbers and strings", `[1, "a"]`, `[1]`, ``, Config{}, "reference_data.x"},
		{"strings and booleans", `["a", true]`, `["a"]`, ``, Config{}, "reference_data.x"},
		{"sides differ", `[1, 2]`, `["a"]`, ``, Config{}, "current_data.x"},
		{"Infinity", `[1, Infinity]`, `[1]`, ``, Config{}, "reference_data.x"},
		{"-Infinity", `[1]`, `[-Infinity, 2]`, ``, Config{}, "current_data.x"},
		{"beyond float64", `[1, 1e400]`, `[1]`, ``, Config{}, "reference_data.x"},
		{"object inside", `[1]`, `[2, {"a": 1}]`, ``, Config{}, "current_data.x"},
		{"ks_test on strings", `["a"]`, `["b"]`, `{"method": "ks_test"}`, Config{}, "reference_data.x"},
		{"configured numeric, holds strings", `["a"]`, `["b"]`, ``, numericOnly, "reference_data.c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "x"
			if tc.field == "reference_data.c" {
				name = "c"
			}
			b := `{"model_id": "m1", "reference_data": {"` + name + `": ` + tc.ref + `}, "current_data": {"` + name + `": ` + tc.cur + `}`
			if tc.config != "" {
				b += `, "config": ` + tc.config
			}
			_, err := run(t, b+"}", tc.cfg)
			wantProblem(t, err, http.StatusUnprocessableEntity, tc.field)
		})
	}
	t.Run("every feature named", func(t *testing.T) {
		_, err := run(t, `{"model_id": "m1", "reference_data": {"a": [], "b": [1, "x"], "c": [1]},
			"current_data": {"a": [1], "b": [1], "c": [Infinity]}}`, Config{})
		for _, f := range []string{"reference_data.a", "reference_data.b", "current_data.c"} {
			wantProblem(t, err, http.StatusUnprocessableEntity, f)
		}
	})
	t.Run("malformed element", func(t *testing.T) {
		for _, col := range []string{`[01]`, `[1.]`, `[-]`, `[1e]`, `[tru]`, `[nul]`, `[1 2]`, `[1,]`, `[,1]`, `[+1]`, `[.5]`, `["\x"]`} {
			_, err := run(t, `{"model_id": "m1", "reference_data": {"a": `+col+`}, "current_data": {"a": [1]}}`, Config{})
			wantProblem(t, err, http.StatusBadRequest, "")
		}
	})
	t.Run("too many values", func(t *testing.T) {
		req, err := ParseRequest([]byte(`{"model_id": "m1", "reference_data": {"a": [1, 2, 3], "b": [1, 2]}, "current_data": {"a": [1, null], "b": [3]}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (Detector{MaxValues: 8}).Detect(t.Context(), req, Config{}); err != nil {
			t.Fatalf("8 values with a limit of 8: got error %v, want nil", err)
		}
		_, err = Detector{MaxValues: 7}.Detect(t.Context(), req, Config{})
		wantProblem(t, err, http.StatusRequestEntityTooLarge, "max_values")
	})
}

// TestColumn checks the reading of values a JSON decoder would give.
func TestColumn(t *testing.T) {
	c, err := readColumn([]byte(`[ -0, 0.5, -1.25e-3, 1E+2, 4.9e-324, 1e-400, 12345678901234567890 ]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.5, -1.25e-3, 100, 4.9e-324, 0, 12345678901234567890}
	if !slices.Equal(c.nums, want) {
		t.Errorf("numbers: got %v, want %v", c.nums, want)
	}
	spaced, err := readColumn([]byte("[1,\n\t2 , -3,4\r\n, null, 5,  6, \n7 ]"))
	if err != nil || !slices.Equal(spaced.nums, []float64{1, 2, -3, 4, 5, 6, 7}) || spaced.missing != 1 {
		t.Errorf("numbers between whitespace: got %v, %d missing, %v, want [1 2 -3 4 5 6 7], 1 missing, no error", spaced.nums, spaced.missing, err)
	}
	f := func(col, want string, status int) {
		t.Helper()
		_, err := readColumn([]byte(col))
		if err == nil || err.Status != status || !strings.Contains(err.Reason, want) {
			t.Errorf("readColumn(%s): got %v, want a %d naming %q", col, err, status, want)
		}
	}
	f(`[1, 2, 3, 1e400, 5]`, "element 3 (1e400)", http.StatusUnprocessableEntity)
	f(`[1, 2, -Infinity, 5]`, "element 2 is -Infinity", http.StatusUnprocessableEntity)
	f(`[1, 2, "a"]`, "element 2 is one of strings", http.StatusUnprocessableEntity)
	f(`[1,2,01]`, "element 2: got '1'", http.StatusBadRequest)
	f(`[1, 2, -]`, "element 2 is not a valid number", http.StatusBadRequest)
	c, err = readColumn([]byte(`["a\u00e9", "aé", "\"q\"", true, "true"]`))
	if err == nil || !strings.Contains(err.Reason, "element 3") {
		t.Errorf("strings then a boolean: got %v, want an error naming element 3", err)
	}
	c, err = readColumn([]byte(`["a\u00e9", "aé", "\"q\"", "true"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.labels, []string{"aé", `"q"`, "true"}) || !slices.Equal(c.counts, []int{2, 1, 1}) {
		t.Errorf("categories: got %q × %v, want [aé \"q\" true] × [2 1 1]", c.labels, c.counts)
	}
	c, _ = readColumn([]byte(`[1, 2.5, 1, 1e21]`))
	c.asCategories()
	if !slices.Equal(c.labels, []string{"1", "2.5", "1e+21"}) || !slices.Equal(c.counts, []int{2, 1, 1}) {
		t.Errorf("numbers as categories: got %q × %v, want [1 2.5 1e+21] × [2 1 1]", c.labels, c.counts)
	}
}
