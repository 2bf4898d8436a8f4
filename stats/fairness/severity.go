package fairness

// Severity grades how far a metric misses its pass condition; an audit's
// severity is the highest of its metrics'. The zero Severity is SeverityNone.
//
// A passing metric has severity none. A failing one is graded by its miss:
//
//	low       miss up to 1.5  (score 0.70 to 0.80: fair)     e.g. impact 0.70 to 0.80, difference 0.10 to 0.15
//	medium    miss up to 2    (score 0.60 to 0.70: poor)     e.g. impact 0.60 to 0.70, difference 0.15 to 0.20
//	high      miss up to 3    (score 0.40 to 0.60)           e.g. impact 0.40 to 0.60, difference 0.20 to 0.30
//	critical  miss above 3    (score below 0.40)             e.g. impact below 0.40, difference above 0.30
//
// The audit's severity is the highest of its metrics'. A bias audit at high
// or critical severity drafts a risk-register entry (Severity.DraftsRisk),
// category bias, with likelihood 4 for high and 5 for critical and impact
// 4 (Severity.RiskLikelihood), source_type bias_audit.
type Severity int

// Severities in increasing order. With miss = how many allowances the
// disparity spends (1 at the threshold, see the package documentation):
// a passing metric is none; a failing one is low up to 1.5, medium up to 2,
// high up to 3 and critical beyond.
const (
	SeverityNone Severity = iota
	SeverityLow
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = [...]string{"none", "low", "medium", "high", "critical"}

// String is the API spelling: none, low, medium, high or critical.
func (s Severity) String() string {
	if s < SeverityNone || s > SeverityCritical {
		return "unknown"
	}
	return severityNames[s]
}

// MarshalText writes String, so JSON shows the name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// DraftsRisk reports whether an audit at this severity drafts a risk-register
// entry (high and critical do).
func (s Severity) DraftsRisk() bool { return s >= SeverityHigh }

// RiskLikelihood is the likelihood (1-5) of the drafted risk entry: 4 for
// high, 5 for critical, 0 when no entry is drafted. The impact is always 4.
func (s Severity) RiskLikelihood() int {
	switch {
	case s >= SeverityCritical:
		return 5
	case s == SeverityHigh:
		return 4
	}
	return 0
}

// severityOf grades a metric from its miss (see score.go).
func severityOf(passed bool, miss float64) Severity {
	switch {
	case passed:
		return SeverityNone
	case miss <= 1.5:
		return SeverityLow
	case miss <= 2:
		return SeverityMedium
	case miss <= 3:
		return SeverityHigh
	}
	return SeverityCritical
}
