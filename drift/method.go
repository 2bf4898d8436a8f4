package drift

// Method names a drift test. The zero Method means "choose by the
// feature's type": ks_test for numeric features, chi_squared for
// categorical ones.
type Method string

// The drift tests. KS and ChiSquared are hypothesis tests: they report a
// p-value and flag drift when it is below the threshold (a significance
// level). PSI and JS are distances without a p-value: they flag drift when
// the score reaches the threshold.
const (
	// KS is the two-sample Kolmogorov-Smirnov test (numeric features
	// only). drift_score is the statistic D, the largest distance between
	// the two empirical CDFs, in [0, 1].
	KS Method = "ks_test"
	// ChiSquared is the chi-squared test of homogeneity on the 2×K table of
	// reference and current counts (categories, or ten reference-quantile
	// bins of a numeric feature), with Yates' correction when K is 2.
	// drift_score is Cramér's V, sqrt(χ²/N) with N = n_ref + n_cur, in
	// [0, 1].
	ChiSquared Method = "chi_squared"
	// PSI is the population stability index over the same cells, natural
	// logarithm, empty cells floored at a proportion of 1e-4. drift_score
	// is the index itself, 0 for equal distributions and unbounded above.
	PSI Method = "psi"
	// JS is the Jensen-Shannon distance (square root of the divergence,
	// base 2) over the same cells. drift_score is the distance, in [0, 1].
	JS Method = "js_divergence"
)

// Methods lists every method, in the order documented.
var Methods = []Method{KS, ChiSquared, PSI, JS}

// Valid reports whether m is a known method; the zero Method is valid
// ("choose by type").
func (m Method) Valid() bool {
	if m == "" {
		return true
	}
	for _, k := range Methods {
		if m == k {
			return true
		}
	}
	return false
}

// Tests reports whether m is a hypothesis test, whose threshold is a
// significance level compared with the p-value.
func (m Method) Tests() bool { return m == KS || m == ChiSquared }

// Numeric reports whether m needs numeric values.
func (m Method) Numeric() bool { return m == KS }

// thresholdRange is the open-or-closed interval a threshold of m must lie
// in, as text for messages, and whether t lies in it. Significance levels
// lie in (0, 1); a JS distance in (0, 1]; a PSI in (0, 10].
func (m Method) thresholdOK(t float64) (bool, string) {
	switch {
	case m == "" || m.Tests():
		return t > 0 && t < 1, "greater than 0 and less than 1"
	case m == JS:
		return t > 0 && t <= 1, "greater than 0 and at most 1"
	}
	return t > 0 && t <= 10, "greater than 0 and at most 10"
}

// methodNames renders Methods for messages.
func methodNames() []string {
	out := make([]string, len(Methods))
	for i, m := range Methods {
		out[i] = string(m)
	}
	return out
}

// FeatureType is how a feature's values are compared: as numbers or as
// categories. The zero FeatureType means "inferred from the values".
type FeatureType string

// Feature types. Arrays of numbers are numeric; arrays of strings or of
// booleans are categorical. A numeric column configured as categorical is
// counted by distinct value (integer codes, for example).
const (
	Numeric     FeatureType = "numeric"
	Categorical FeatureType = "categorical"
)

// Severity grades a detected drift. A feature whose drift is not detected
// is low whatever its score.
type Severity string

// Severities, least first.
const (
	Low    Severity = "low"
	Medium Severity = "medium"
	High   Severity = "high"
)

// rank orders severities: low 0, medium 1, high 2.
func (s Severity) rank() int {
	switch s {
	case Medium:
		return 1
	case High:
		return 2
	}
	return 0
}

// Severities lists every severity, least first.
var Severities = []string{string(Low), string(Medium), string(High)}
