package drift

import (
	"reflect"
	"testing"
	"time"
)

func TestDaily(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	p := func(hours int, detected bool, score float64, sev Severity) TrendPoint {
		return TrendPoint{Timestamp: day.Add(time.Duration(hours) * time.Hour), DriftDetected: detected, OverallDriftScore: score, Severity: sev}
	}
	got := Daily([]TrendPoint{p(1, false, 0.1, Low), p(5, true, 0.5, High), p(23, true, 0.3, Medium), p(24, false, 0, Low), p(72, true, 0.2, Medium)})
	want := []TrendDay{
		{Timestamp: day, Reports: 3, DriftedReports: 2, DriftDetected: true, OverallDriftScore: 0.5, MeanDriftScore: (0.1 + 0.5 + 0.3) / 3, Severity: High},
		{Timestamp: day.Add(24 * time.Hour), Reports: 1, Severity: Low},
		{Timestamp: day.Add(72 * time.Hour), Reports: 1, DriftedReports: 1, DriftDetected: true, OverallDriftScore: 0.2, MeanDriftScore: 0.2, Severity: Medium},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := Daily(nil); got == nil || len(got) != 0 {
		t.Errorf("Daily(nil): got %#v, want an empty list", got)
	}
}
