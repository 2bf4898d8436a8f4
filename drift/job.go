package drift

import (
	"maps"
	"math"
	"slices"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/stattest"
)

// job is one feature to test, with what the request and the model's
// configuration decided for it.
type job struct {
	feature Feature
	// method is "" when it is chosen by the feature's type.
	method       Method
	methodSource string
	// threshold is nil when it is the method's threshold from thresholds.
	threshold  *float64
	typ        FeatureType
	thresholds Thresholds
}

// Where a method or a type came from.
const (
	sourceRequest  = "request"
	sourceFeature  = "feature_config"
	sourceDefault  = "default"
	sourceInferred = "inferred"
)

// plan decides each feature's method, threshold and type. Precedence: the
// request's config, then the model's feature_configs, then the model's
// threshold_config (or the medium preset), then the choice by type.
func plan(req Request, cfg Config) ([]job, []string) {
	skipped := []string{}
	var jobs []job
	for _, f := range req.Features {
		fc := cfg.Features[f.Name]
		if !fc.On() {
			skipped = append(skipped, f.Name)
			continue
		}
		j := job{feature: f, method: fc.Method, methodSource: sourceFeature, threshold: fc.Threshold,
			typ: fc.Type, thresholds: cfg.Thresholds.Effective()}
		if j.method == "" {
			j.methodSource = sourceDefault
		}
		if req.Method != "" {
			j.method, j.methodSource = req.Method, sourceRequest
		}
		if req.Threshold != nil {
			j.threshold = req.Threshold
		}
		jobs = append(jobs, j)
	}
	return jobs, skipped
}

// run reads the feature's two arrays and tests them. add counts read
// elements against the request's limit and reports false once it is
// passed. Problems come back keyed by field.
func (j job) run(add func(n int) bool) (FeatureResult, map[string]*fieldError) {
	sides := [2]struct {
		field string
		raw   []byte
		col   column
	}{{field: "reference_data." + j.feature.Name, raw: j.feature.Reference},
		{field: "current_data." + j.feature.Name, raw: j.feature.Current}}
	errs := map[string]*fieldError{}
	for i := range sides {
		col, err := readColumn(sides[i].raw)
		if err != nil {
			errs[sides[i].field] = err
			continue
		}
		if !add(col.size() + col.missing) {
			return FeatureResult{}, nil
		}
		if col.kind == kindNone {
			errs[sides[i].field] = invalid("got 0 values after removing %d missing (null, \"\", NaN), want at least 1", col.missing)
		}
		sides[i].col = col
	}
	if len(errs) > 0 {
		return FeatureResult{}, errs
	}
	ref, cur := &sides[0].col, &sides[1].col
	if ref.kind != cur.kind {
		errs[sides[1].field] = invalid("holds %s but %s holds %s", cur.kind, sides[0].field, ref.kind)
		return FeatureResult{}, errs
	}
	res, err := j.test(ref, cur)
	if err != nil {
		errs[sides[0].field] = err
		return FeatureResult{}, errs
	}
	return res, nil
}

// test resolves the type and method against the values and runs the test.
func (j job) test(ref, cur *column) (FeatureResult, *fieldError) {
	res := FeatureResult{Type: j.typ, TypeSource: sourceFeature, MethodSource: j.methodSource,
		Missing: Sides{ref.missing, cur.missing}, SampleSize: Sides{ref.size(), cur.size()}}
	if res.Type == "" {
		res.Type, res.TypeSource = Categorical, sourceInferred
		if ref.kind == kindNumber {
			res.Type = Numeric
		}
	}
	if res.Type == Numeric && ref.kind != kindNumber {
		return res, invalid("holds %s, but feature_configs makes the feature numeric", ref.kind)
	}
	if !j.chooseMethod(&res) {
		return res, invalid("is categorical (%s), but %s needs numbers: choose chi_squared, psi or js_divergence", ref.kind, res.Method)
	}
	if res.Type == Categorical {
		ref.asCategories()
		cur.asCategories()
	}
	if err := j.setThreshold(&res); err != nil {
		return res, err
	}
	if err := measure(&res, ref, cur); err != nil {
		return res, invalid("%v", err)
	}
	j.decide(&res)
	return res, nil
}

// chooseMethod sets res.Method: the job's, else ks_test for numbers and
// chi_squared for categories. It reports false when the job's method
// needs numbers and the feature is categorical.
func (j job) chooseMethod(res *FeatureResult) bool {
	res.Method = j.method
	switch {
	case res.Method == "" && res.Type == Numeric:
		res.Method = KS
	case res.Method == "":
		res.Method = ChiSquared
	case res.Method.Numeric() && res.Type != Numeric:
		return false
	}
	return true
}

// setThreshold sets the threshold of res.Method: the job's own, else the
// method's from the thresholds; a threshold that does not suit the
// method is a problem.
func (j job) setThreshold(res *FeatureResult) *fieldError {
	res.Threshold = j.thresholds.For(res.Method)
	if j.threshold != nil {
		res.Threshold = *j.threshold
	}
	if ok, want := res.Method.thresholdOK(res.Threshold); !ok {
		return invalid("threshold %v does not suit %s: want a number %s", res.Threshold, res.Method, want)
	}
	return nil
}

// decide says whether the measured feature drifted, and how badly: a
// test's p-value below the threshold, or a score at or above it.
func (j job) decide(res *FeatureResult) {
	if res.Method.Tests() {
		res.DriftDetected = res.PValue != nil && *res.PValue < res.Threshold
	} else {
		res.DriftDetected = res.DriftScore >= res.Threshold
	}
	res.Severity = Low
	if res.DriftDetected {
		res.Severity = j.thresholds.Severity.Grade(res.DriftScore)
	}
}

// measure computes res.Method's statistic, score and p-value with
// stats/stattest.
func measure(res *FeatureResult, ref, cur *column) error {
	var table stattest.Table
	if res.Type == Numeric {
		d, err := stattest.TakeNumeric(ref.nums, cur.nums)
		if err != nil {
			return err
		}
		if res.Method == KS {
			ks, err := d.KS(stattest.ModeAuto, stattest.TwoSided)
			if err != nil {
				return err
			}
			res.Statistic, res.DriftScore, res.PValue = ks.Statistic, ks.Statistic, finite(ks.PValue)
			return nil
		}
		table = d.Bin(0)
	} else {
		var err error
		if table, err = categoryTable(ref, cur); err != nil {
			return err
		}
	}
	scoreTable(res, table)
	return nil
}

// scoreTable sets res's statistic, score and p-value from a binned or
// categorical table, for every method but ks_test.
func scoreTable(res *FeatureResult, table stattest.Table) {
	switch res.Method {
	case ChiSquared:
		chi := table.ChiSquare(true)
		res.Statistic, res.PValue = chi.Statistic, finite(chi.PValue)
		res.DriftScore = cramersV(chi.Statistic, chi.NRef+chi.NCur, chi.Cells)
	case PSI:
		res.Statistic = table.PSI(0).Value
		res.DriftScore = res.Statistic
	default:
		res.Statistic = table.JensenShannon().Distance
		res.DriftScore = res.Statistic
	}
}

// categoryTable counts both columns into one table over the union of
// their categories, in sorted order (as stattest.NewCategorical does).
func categoryTable(ref, cur *column) (stattest.Table, error) {
	seen := maps.Clone(ref.index)
	for _, l := range cur.labels {
		if _, ok := seen[l]; !ok {
			seen[l] = -1
		}
	}
	labels := slices.Sorted(maps.Keys(seen))
	r, c := make([]int, len(labels)), make([]int, len(labels))
	for i, l := range labels {
		if k, ok := ref.index[l]; ok {
			r[i] = ref.counts[k]
		}
		if k, ok := cur.index[l]; ok {
			c[i] = cur.counts[k]
		}
	}
	t, err := stattest.FromCounts(labels, r, c)
	t.MissingRef, t.MissingCur = ref.missing, cur.missing
	return t, err
}

// cramersV is Cramér's V of a 2×cells table: sqrt(χ²/(n·(min(2, cells)-1))),
// 0 for a single cell, at most 1.
func cramersV(chi2 float64, n, cells int) float64 {
	if cells < 2 || n == 0 {
		return 0
	}
	return min(1, math.Sqrt(chi2/float64(n)))
}

// finite returns &p, or nil for a NaN (which JSON cannot carry).
func finite(p float64) *float64 {
	if math.IsNaN(p) {
		return nil
	}
	return &p
}

// problems turns the features' problems into one error: the first
// malformed array (400) when there is one, else a 422 naming every
// offending array.
func problems(jobs []job, errs []map[string]*fieldError) error {
	var v web.Problems
	for i := range jobs {
		for _, field := range slices.Sorted(maps.Keys(errs[i])) {
			e := errs[i][field]
			if e.Status == 400 {
				return web.BadRequest(field + ": " + e.Reason)
			}
			v.Add(field, e.Reason)
		}
	}
	return v.Err()
}
