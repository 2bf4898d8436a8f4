package fairness

// Severity grades how far a metric misses its pass condition; an audit's
// severity is the highest of its metrics'. The zero Severity is SeverityNone.
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
