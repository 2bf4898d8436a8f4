package fairness

// Thresholds are the pass conditions. A zero field takes its default, so the
// zero Thresholds are the spec's conditions.
type Thresholds struct {
	// ParityMin and ParityMax bound the demographic parity ratio (defaults
	// 0.8 and 1.2, inclusive).
	ParityMin, ParityMax float64
	// OpportunityMax is the equal opportunity difference a metric must stay
	// below (default 0.1, exclusive).
	OpportunityMax float64
	// OddsMax is the equalized odds difference a metric must stay below
	// (default 0.1, exclusive; the spec states none, Vigil uses equal
	// opportunity's).
	OddsMax float64
	// ImpactMin is the disparate impact ratio a metric must reach (default
	// 0.8, inclusive).
	ImpactMin float64
}

// Default pass conditions.
const (
	DefaultParityMin      = 0.8
	DefaultParityMax      = 1.2
	DefaultOpportunityMax = 0.1
	DefaultOddsMax        = 0.1
	DefaultImpactMin      = 0.8
)

// resolved returns t with defaults in place of zero fields, or an error when
// a condition cannot be met or scored.
func (t Thresholds) resolved() (Thresholds, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&t.ParityMin, DefaultParityMin)
	def(&t.ParityMax, DefaultParityMax)
	def(&t.OpportunityMax, DefaultOpportunityMax)
	def(&t.OddsMax, DefaultOddsMax)
	def(&t.ImpactMin, DefaultImpactMin)
	switch {
	case !(t.ParityMin > 0 && t.ParityMin < 1):
		return t, invalid("parity minimum: got %v, want a ratio in (0, 1)", t.ParityMin)
	case !(t.ParityMax > 1):
		return t, invalid("parity maximum: got %v, want a ratio above 1", t.ParityMax)
	case !(t.OpportunityMax > 0 && t.OpportunityMax <= 1):
		return t, invalid("equal opportunity maximum: got %v, want a difference in (0, 1]", t.OpportunityMax)
	case !(t.OddsMax > 0 && t.OddsMax <= 1):
		return t, invalid("equalized odds maximum: got %v, want a difference in (0, 1]", t.OddsMax)
	case !(t.ImpactMin > 0 && t.ImpactMin < 1):
		return t, invalid("disparate impact minimum: got %v, want a ratio in (0, 1)", t.ImpactMin)
	}
	return t, nil
}
