package stattest

import (
	"fmt"
	"math"
)

// Mode chooses how KS computes its p-value, as scipy.stats.ks_2samp's
// method argument does. The zero Mode is ModeAuto.
type Mode int

const (
	// ModeAuto is exact when both samples have at most 10,000 values
	// (scipy's MAX_AUTO_N), asymptotic otherwise.
	ModeAuto Mode = iota
	// ModeExact counts lattice paths. Like scipy it falls back to
	// ModeAsymptotic when lcm(n_ref, n_cur) is too large (n_ref/g >=
	// (2^31-1)/(n_cur/g), g their gcd) or the count fails numerically. Its
	// cost grows with n_ref·n_cur·D, so keep it for modest samples.
	ModeExact
	// ModeAsymptotic uses the one-sample Kolmogorov distribution of size
	// round(n_ref·n_cur/(n_ref+n_cur)) for two-sided tests (scipy's
	// kstwo.sf) and Hodges' approximation for one-sided ones.
	ModeAsymptotic
)

// String returns "auto", "exact" or "asymptotic".
func (m Mode) String() string { return enumName(int(m), "Mode", "auto", "exact", "asymptotic") }

// Alternative is the alternative hypothesis of KS, as in scipy. The zero
// Alternative is TwoSided.
type Alternative int

const (
	// TwoSided tests whether the two distributions differ.
	TwoSided Alternative = iota
	// Less tests whether the reference CDF lies below the current CDF
	// somewhere; its statistic is max(F_cur - F_ref).
	Less
	// Greater tests whether the reference CDF lies above the current CDF
	// somewhere; its statistic is max(F_ref - F_cur).
	Greater
)

// String returns "two-sided", "less" or "greater".
func (a Alternative) String() string {
	return enumName(int(a), "Alternative", "two-sided", "less", "greater")
}

// enumName is names[i], or "Type(i)" out of range.
func enumName(i int, typ string, names ...string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, i)
}

// maxAutoN is scipy's MAX_AUTO_N: ModeAuto is exact up to this size.
const maxAutoN = 10000

// KSResult is the outcome of a two-sample Kolmogorov-Smirnov test.
type KSResult struct {
	// Statistic is the largest distance between the two empirical CDFs (in
	// the direction of the alternative). In exact mode it is h/lcm(n_ref,
	// n_cur) for the integer h nearest to the distance, as in scipy.
	Statistic float64
	// PValue is the probability of a statistic at least this large when
	// both samples come from one distribution. It is NaN only for the
	// asymptotic two-sided test of two one-value samples (scipy gives NaN
	// there too: the effective size rounds to 0).
	PValue float64
	// Location is the value at which Statistic is attained (scipy's
	// statistic_location, with its tie-breaking).
	Location float64
	// Sign is +1 when F_ref - F_cur reaches Statistic at Location, -1 when
	// F_cur - F_ref does (scipy's statistic_sign).
	Sign int
	// Method is the method that produced PValue: ModeExact or
	// ModeAsymptotic (after ModeAuto's choice and any fallback).
	Method Mode
	// Alternative is the hypothesis tested.
	Alternative Alternative
	// Counts are the values used and the missing values removed.
	Counts
}

// KS runs the two-sided two-sample Kolmogorov-Smirnov test of ref against
// cur, matching scipy.stats.ks_2samp(ref, cur, method=mode) with NaN
// removed and counted. It is NewNumeric followed by Numeric.KS.
func KS(ref, cur []float64, mode Mode) (KSResult, error) {
	d, err := NewNumeric(ref, cur)
	if err != nil {
		return KSResult{}, err
	}
	return d.KS(mode, TwoSided)
}

// KS runs the two-sample Kolmogorov-Smirnov test with the given p-value
// mode and alternative, matching scipy.stats.ks_2samp(ref, cur,
// alternative, method). It takes O(n_ref + n_cur) for the statistic (one
// merge of the sorted samples) plus the p-value's cost.
//
// KS is scipy.stats.ks_2samp. The statistic is max |F_ref - F_cur| over
// the pooled values (or the signed maximum for Less and Greater), found in
// one merge of the sorted samples with SciPy's floating-point expression
// i/n_ref - j/n_cur, so it is bit-identical, as are SciPy's
// statistic_location and statistic_sign. ModeAuto is exact when
// max(n_ref, n_cur) <= 10,000 (SciPy's MAX_AUTO_N) and asymptotic
// otherwise. Exact two-sided p-values use SciPy's algorithms: the nested
// reflection product for equal sizes and the lattice-path recursion of
// Hodges (1958) in Viehmann's (2021) complementary form for unequal ones.
// Exact one-sided p-values for unequal sizes propagate path probabilities
// (SciPy counts paths with floating binomials; both give up and fall back
// to the asymptotic formula when C(n_ref+n_cur, n_ref) overflows a
// float64). ModeExact also falls back, as in SciPy, when lcm(n_ref, n_cur)
// exceeds the int32 range, and when rounding puts the exact p-value
// outside [0, 1] (it happens for equal sizes at the smallest statistic,
// where p is 1). KSResult.Method says which method produced the p-value.
// ksexact_test.go checks every exact p-value of sizes up to 13×11 against
// a direct count of lattice paths. The asymptotic two-sided p-value is SciPy's
// kstwo.sf(D, round(n_ref·n_cur/(n_ref+n_cur))): the exact one-sample
// Kolmogorov distribution of that size, by Simard and L'Ecuyer's choice of
// method (Durbin matrix, Pomeranz, Pelz-Good, Smirnov's one-sided sum); the
// one-sided asymptotic p-value is Hodges' approximation, as in SciPy. For
// two one-value samples the asymptotic two-sided p-value is NaN, as in
// SciPy (the effective size rounds to 0); ModeAuto never gets there.
func (d Numeric) KS(mode Mode, alt Alternative) (KSResult, error) {
	if mode < ModeAuto || mode > ModeAsymptotic {
		return KSResult{}, fmt.Errorf("stattest: KS mode %v: %w", mode, ErrInvalid)
	}
	if alt < TwoSided || alt > Greater {
		return KSResult{}, fmt.Errorf("stattest: KS alternative %v: %w", alt, ErrInvalid)
	}
	n1, n2 := d.Ref.Len(), d.Cur.Len()
	if n1 == 0 || n2 == 0 {
		return KSResult{}, fmt.Errorf("stattest: KS on an unpaired Numeric: %w", ErrEmpty)
	}
	ext := ecdfExtremes(d.Ref.Sorted, d.Cur.Sorted)
	res := KSResult{Alternative: alt, Counts: d.Counts()}
	minS := min(max(-ext.min, 0), 1)
	if alt == Less || (alt == TwoSided && minS > ext.max) {
		res.Statistic, res.Location, res.Sign = minS, ext.minLoc, -1
	} else {
		res.Statistic, res.Location, res.Sign = ext.max, ext.maxLoc, 1
	}
	res.Method, res.Statistic, res.PValue = ksPValue(n1, n2, res.Statistic, mode, alt)
	return res, nil
}

// ksPValue chooses the method as scipy does and returns it with the
// (possibly rounded) statistic and the p-value.
func ksPValue(n1, n2 int, stat float64, mode Mode, alt Alternative) (Mode, float64, float64) {
	g := gcd(n1, n2)
	n1g, n2g := n1/g, n2/g
	switch mode {
	case ModeAuto:
		mode = ModeAsymptotic
		if max(n1, n2) <= maxAutoN {
			mode = ModeExact
		}
	case ModeExact:
		if float64(n1g) >= float64(math.MaxInt32)/float64(n2g) {
			mode = ModeAsymptotic
		}
	}
	if mode == ModeExact {
		lcm := int64(n1g) * int64(n2)
		h := int64(math.RoundToEven(stat * float64(lcm)))
		stat = float64(h) / float64(lcm)
		if p, ok := ksExact(n1, n2, g, h, alt); ok {
			return ModeExact, stat, p
		}
	}
	return ModeAsymptotic, stat, clamp01(ksAsymptotic(n1, n2, stat, alt))
}

// ksAsymptotic is scipy's large-sample p-value: the one-sample Kolmogorov
// distribution of size round(en) for two-sided tests, Hodges' (1958)
// equation 5.3 for one-sided ones.
func ksAsymptotic(n1, n2 int, d float64, alt Alternative) float64 {
	m, n := float64(max(n1, n2)), float64(min(n1, n2))
	en := m * n / (m + n)
	if alt == TwoSided {
		k := math.RoundToEven(en)
		if k < 1 {
			return math.NaN()
		}
		return kolmogorovSF(int(k), d)
	}
	z := math.Sqrt(en) * d
	expt := -2*z*z - 2*z*(m+2*n)/math.Sqrt(m*n*(m+n))/3.0
	return math.Exp(expt)
}

func clamp01(p float64) float64 {
	if p != p {
		return p
	}
	return min(max(p, 0), 1)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// KSPValue is the p-value of a two-sample KS statistic d between samples
// of n1 and n2 values, with the method chosen as KS chooses it (mode) and
// the one it used: for a statistic computed elsewhere, e.g. from sketches
// whose cumulative counts are exact at bucket boundaries, so that d is of
// the form i/n1 − j/n2.
func KSPValue(n1, n2 int, d float64, mode Mode, alt Alternative) (Mode, float64) {
	if n1 <= 0 || n2 <= 0 {
		return ModeAsymptotic, math.NaN()
	}
	used, _, p := ksPValue(n1, n2, d, mode, alt)
	return used, p
}
