package fairness

// Band names the range of an overall fairness score, as the spec states
// them. The zero Band is "" (no score).
type Band string

// The score bands.
const (
	BandExcellent Band = "excellent" // 0.90-1.00
	BandGood      Band = "good"      // 0.80-0.89
	BandFair      Band = "fair"      // 0.70-0.79
	BandPoor      Band = "poor"      // 0.60-0.69
	BandCritical  Band = "critical"  // below 0.60
)

// BandOf returns the band of a score in [0, 1]. Each band starts at its
// lower bound inclusive, so 0.895 is good and 0.9 is excellent.
func BandOf(score float64) Band {
	switch {
	case score >= 0.9:
		return BandExcellent
	case score >= 0.8:
		return BandGood
	case score >= 0.7:
		return BandFair
	case score >= 0.6:
		return BandPoor
	}
	return BandCritical
}
