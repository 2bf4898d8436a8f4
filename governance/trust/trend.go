package trust

// Trend directions of a history.
const (
	TrendImproving = "improving"
	TrendDeclining = "declining"
	TrendStable    = "stable"
)

// TrendThreshold is how many points the score must move, from the oldest
// to the newest scored snapshot of a history, to count as a trend.
const TrendThreshold = 2.0

// Trend is the history's trend_direction: the newest scored snapshot's
// trust_score minus the oldest's; improving at TrendThreshold or more,
// declining at −TrendThreshold or less, stable between; nil (JSON null)
// with fewer than two scored snapshots. Snapshots without a score (no
// input available) are left out.
func Trend(points []Snapshot) *string {
	var first, last *float64
	n := 0
	for _, p := range points {
		if p.Score == nil {
			continue
		}
		if first == nil {
			first = p.Score
		}
		last = p.Score
		n++
	}
	if n < 2 {
		return nil
	}
	d := *last - *first
	switch {
	case d >= TrendThreshold:
		return ptr(TrendImproving)
	case d <= -TrendThreshold:
		return ptr(TrendDeclining)
	}
	return ptr(TrendStable)
}
