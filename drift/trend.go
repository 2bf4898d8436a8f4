package drift

import "time"

// MaxTrendPoints bounds the reports one trend answer carries: the oldest
// of the period are left out beyond it.
const MaxTrendPoints = 2000

// Trend intervals: a point per report, or per UTC day.
const (
	IntervalReport = "report"
	IntervalDay    = "day"
)

// TrendPoint is one report in a drift trend.
type TrendPoint struct {
	// Timestamp is when the report was written; WindowEnd the end of the
	// window it compared.
	Timestamp         time.Time `json:"timestamp"`
	WindowEnd         time.Time `json:"window_end"`
	ReportID          string    `json:"report_id"`
	DriftDetected     bool      `json:"drift_detected"`
	OverallDriftScore float64   `json:"overall_drift_score"`
	Severity          Severity  `json:"severity"`
}

// TrendDay sums the reports written on one UTC day.
type TrendDay struct {
	// Timestamp is the day's start (UTC midnight).
	Timestamp time.Time `json:"timestamp"`
	// Reports counts the day's reports, DriftedReports those that found
	// drift.
	Reports        int `json:"reports"`
	DriftedReports int `json:"drifted_reports"`
	// DriftDetected is whether any report found drift; OverallDriftScore
	// the highest score and MeanDriftScore the mean; Severity the highest.
	DriftDetected     bool     `json:"drift_detected"`
	OverallDriftScore float64  `json:"overall_drift_score"`
	MeanDriftScore    float64  `json:"mean_drift_score"`
	Severity          Severity `json:"severity"`
}

// Trend answers GET /drift/trend. Data holds []TrendPoint, or []TrendDay
// with interval day.
type Trend struct {
	ModelID   string `json:"model_id"`
	DriftType string `json:"drift_type"`
	Days      int    `json:"days"`
	Interval  string `json:"interval"`
	Data      any    `json:"data"`
}

// Daily sums points, oldest first, per UTC day of their timestamp; days
// without a report are left out.
func Daily(points []TrendPoint) []TrendDay {
	out := []TrendDay{}
	var sums []float64 // of each day's scores, for its mean
	for _, p := range points {
		day := p.Timestamp.UTC().Truncate(24 * time.Hour)
		if n := len(out); n == 0 || !out[n-1].Timestamp.Equal(day) {
			out, sums = append(out, TrendDay{Timestamp: day, Severity: Low}), append(sums, 0)
		}
		d := &out[len(out)-1]
		d.Reports++
		sums[len(sums)-1] += p.OverallDriftScore
		if p.DriftDetected {
			d.DriftedReports++
			d.DriftDetected = true
		}
		d.OverallDriftScore = max(d.OverallDriftScore, p.OverallDriftScore)
		if p.Severity.rank() > d.Severity.rank() {
			d.Severity = p.Severity
		}
	}
	for i := range out {
		out[i].MeanDriftScore = sums[i] / float64(out[i].Reports)
	}
	return out
}
