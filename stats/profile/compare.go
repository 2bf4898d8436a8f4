package profile

import (
	"fmt"
	"slices"

	"github.com/vigilhq/vigil/stats/quantile"
	"github.com/vigilhq/vigil/stats/stattest"
)

// Kind is how a feature is tested.
type Kind int

// The kinds of features.
const (
	Numeric Kind = iota + 1
	Categorical
)

// String returns "numeric" or "categorical".
func (k Kind) String() string {
	switch k {
	case Numeric:
		return "numeric"
	case Categorical:
		return "categorical"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// OtherCell labels the cell of categories beyond MaxCategories.
const OtherCell = "(other)"

// Result is one feature compared.
type Result struct {
	Feature string
	Kind    Kind
	// KS is set for numeric features: Statistic is D̂ (see the package
	// documentation), never above the exact statistic.
	KS *stattest.KSResult
	// KSBound bounds the exact statistic: within [D̂, D̂+KSBound].
	KSBound float64
	// Table is the binned (numeric) or categorical table for PSI,
	// Jensen-Shannon, Hellinger and chi-squared. Numeric bins end at
	// sketch bucket boundaries, so the table has counts but no Edges.
	Table stattest.Table
	// Missing counts the reference and current rows without a value of
	// the feature's kind: absent, null, of the other kind or unsupported.
	// Mismatched counts those of the other kind.
	MissingRef, MissingCur       int64
	MismatchedRef, MismatchedCur int64
}

// Compare tests every feature of ref that cur also profiles, in name
// order. A feature with no value of its kind on either side is reported
// in skipped with the reason, not compared.
//
// Numeric features: the KS statistic is computed from the two sketches at
// every bucket boundary, where both cumulative counts are exact, so the
// reported statistic D̂ is never above the exact one and the exact one is
// at most D̂ + Bound, where Bound is the largest share of either sample in
// one bucket: a bucket spans 2% of its values' magnitude, so for
// continuous data the bound is about 0.02·|x|·density(x) at its largest,
// around 0.01 for standard normal data, and it is reported with each
// result. The p-value is the two-sample KS p-value of D̂ at the two
// sample sizes (stattest.KSPValue). The binned table has ten bins whose
// edges are the bucket boundaries nearest above the reference's deciles
// (within 1% of the exact deciles): PSI, Jensen-Shannon and Hellinger on
// it are exact for those edges.
//
// Categorical features: the table holds the exact counts of every
// category kept by name in both profiles, plus one "(other)" cell for the
// counts beyond MaxCategories when either has any; chi-squared, PSI,
// Jensen-Shannon and Hellinger on it are exact.
func Compare(ref, cur *Profile) (results []Result, skipped map[string]error) {
	skipped = map[string]error{}
	names := make([]string, 0, len(ref.Features))
	for name := range ref.Features {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		rf, cf := ref.Features[name], cur.Features[name]
		if cf == nil {
			cf = &Feature{}
		}
		r, err := compare(name, ref.Rows, cur.Rows, rf, cf)
		if err != nil {
			skipped[name] = err
			continue
		}
		results = append(results, r)
	}
	return results, skipped
}

// Kind is how the feature is tested: Categorical when it holds more
// categorical values than numbers, else Numeric.
func (f *Feature) Kind() Kind {
	if f.categorical() > int64(f.Numbers.Count()) {
		return Categorical
	}
	return Numeric
}

func compare(name string, refRows, curRows int64, rf, cf *Feature) (Result, error) {
	r := Result{Feature: name, Kind: rf.Kind()}
	var err error
	if r.Kind == Numeric {
		r.MismatchedRef, r.MismatchedCur = rf.categorical(), cf.categorical()
		r.MissingRef, r.MissingCur = refRows-int64(rf.Numbers.Count()), curRows-int64(cf.Numbers.Count())
		err = r.numeric(&rf.Numbers, &cf.Numbers)
	} else {
		r.MismatchedRef, r.MismatchedCur = int64(rf.Numbers.Count()), int64(cf.Numbers.Count())
		r.MissingRef, r.MissingCur = refRows-rf.categorical(), curRows-cf.categorical()
		r.Table, err = categories(rf, cf)
	}
	if err != nil {
		return Result{}, err
	}
	r.Table.MissingRef, r.Table.MissingCur = int(r.MissingRef), int(r.MissingCur)
	return r, nil
}

// numeric walks both sketches' buckets in step: the KS statistic and its
// bound at the boundaries, and the counts of the ten bins cut at the
// reference's deciles.
func (r *Result) numeric(ref, cur *quantile.Sketch) error {
	n1, n2 := ref.Count(), cur.Count()
	if n1 == 0 || n2 == 0 {
		return fmt.Errorf("profile: no numeric values in the %s profile: %w", side(n1 == 0), stattest.ErrEmpty)
	}
	if ref.Alpha() != cur.Alpha() {
		return fmt.Errorf("profile: sketches of relative accuracy %v and %v cannot be compared: %w", ref.Alpha(), cur.Alpha(), stattest.ErrInvalid)
	}
	rb, cb := slices.Collect(ref.Buckets()), slices.Collect(cur.Buckets())
	const bins = 10
	t := stattest.Table{Ref: make([]int, 1, bins), Cur: make([]int, 1, bins)}
	var cumRef, cumCur uint64
	var d, bound float64
	i, j := 0, 0
	for i < len(rb) || j < len(cb) {
		// The next boundary: the end of the lower of the two next buckets
		// (both when they are the same bucket).
		var order int64
		switch {
		case j == len(cb) || i < len(rb) && rb[i].Order <= cb[j].Order:
			order = rb[i].Order
		default:
			order = cb[j].Order
		}
		var addRef, addCur uint64
		if i < len(rb) && rb[i].Order == order {
			addRef = rb[i].Count
			i++
		}
		if j < len(cb) && cb[j].Order == order {
			addCur = cb[j].Count
			j++
		}
		bound = max(bound, float64(addRef)/float64(n1), float64(addCur)/float64(n2))
		// Bin: a new bin starts after the bucket where the reference's
		// cumulative share first reaches the next decile.
		last := len(t.Ref) - 1
		t.Ref[last] += int(addRef)
		t.Cur[last] += int(addCur)
		cumRef += addRef
		cumCur += addCur
		if len(t.Ref) < bins && cumRef < n1 && cumRef*bins >= uint64(len(t.Ref))*n1 {
			t.Ref, t.Cur = append(t.Ref, 0), append(t.Cur, 0)
		}
		d = max(d, abs(float64(cumRef)/float64(n1)-float64(cumCur)/float64(n2)))
	}
	t.NRef, t.NCur = int(n1), int(n2)
	method, p := stattest.KSPValue(int(n1), int(n2), d, stattest.ModeAuto, stattest.TwoSided)
	r.KS = &stattest.KSResult{Statistic: d, PValue: p, Method: method, Alternative: stattest.TwoSided,
		Counts: stattest.Counts{NRef: int(n1), NCur: int(n2)}}
	r.KSBound = min(bound, 1-d)
	r.Table = t
	return nil
}

// categories is the table of both features' categories: every category
// either keeps by name, in sorted order, and OtherCell when either has
// values beyond MaxCategories.
func categories(rf, cf *Feature) (stattest.Table, error) {
	set := map[string]bool{}
	for v := range rf.Categories {
		set[v] = true
	}
	for v := range cf.Categories {
		set[v] = true
	}
	labels := make([]string, 0, len(set)+1)
	for v := range set {
		labels = append(labels, v)
	}
	slices.Sort(labels)
	ref, cur := make([]int, len(labels)), make([]int, len(labels))
	for i, v := range labels {
		ref[i], cur[i] = int(rf.Categories[v]), int(cf.Categories[v])
	}
	if rf.Other > 0 || cf.Other > 0 {
		labels = append(labels, OtherCell)
		ref, cur = append(ref, int(rf.Other)), append(cur, int(cf.Other))
	}
	return stattest.FromCounts(labels, ref, cur)
}

func side(ref bool) string {
	if ref {
		return "reference"
	}
	return "current"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
