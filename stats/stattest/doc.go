// Package stattest computes two-sample drift statistics between a
// reference and a current sample of one feature, matching SciPy 1.17.1
// (the version testdata/golden.json pins) wherever SciPy has the method.
//
// # API
//
// Numeric features: NewNumeric removes and counts NaN, refuses ±Inf and
// sorts both columns once (NewSample and Pair do the same in two steps, so
// a reference can be prepared once and paired with many current samples;
// TakeNumeric and TakeSample work in place on columns the caller is done
// with, without the copy).
// Every numeric test is then a method on the Numeric:
//
//	d, err := stattest.NewNumeric(ref, cur)       // *InputError: 422, see WithFeature
//	ks, _ := d.KS(stattest.ModeAuto, stattest.TwoSided)
//	w := d.Wasserstein()
//	bins := d.Bin(0)                               // 10 reference-quantile bins
//	psi, js, h := bins.PSI(0), bins.JensenShannon(), bins.Hellinger()
//
// KS(ref, cur, mode) is the one-call two-sided test. Categorical features:
// NewCategorical (raw values, "" is missing) or FromCounts (per-category
// counts, e.g. from sketches) give a Table, the same type Numeric.Bin
// returns, with PSI, JensenShannon, Hellinger, ChiSquare and GoodnessOfFit.
// Every result carries Counts: the values used and the missing values
// removed on each side. Each method's definition and its SciPy
// counterpart are on the method; the tolerances held against SciPy on
// TestGoldenNumeric (golden_test.go), the cost on Numeric.
//
// # Missing and invalid values
//
// NaN (numeric) and "" (categorical) are missing: removed before testing
// and counted in Counts.MissingRef and Counts.MissingCur, never mixed into
// a statistic. A sample with no value left is an *InputError wrapping
// ErrInvalid and ErrEmpty; a numeric ±Inf is one wrapping ErrInvalid and
// ErrInfinite (an infinity is a value, not a missing one, and would make
// Wasserstein infinite and quantile bins undefined). WithFeature puts the
// feature name into the error for the 422 response.
//
// It imports nothing of Vigil: the maths tree stands alone.
package stattest
