// Package analyticstest is the contract every analytical store passes: what the
// processors write, the query API reads back, each event counted once
// however often it is written.
//
// It imports the analytics and eventlog contracts and the maths tree; it
// must not import an engine (each engine's tests call Run) or the code that
// uses the store.
package analyticstest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/stats/quantile"
)

// Store is an analytical store as both roles use it.
type Store interface {
	analytics.Store
	analytics.Sink
	analytics.DeadLetters
	analytics.ProfileStore
	analytics.Checks
	// MergedProfile merges the hourly profiles of a model's side whose
	// hour starts in r.
	MergedProfile(ctx context.Context, orgID, modelID, side string, r analytics.Range) (*profile.Profile, error)
	// FirstProfileHour returns the earliest hour profiled of a model's
	// side; false when none is.
	FirstProfileHour(ctx context.Context, orgID, modelID, side string) (time.Time, bool, error)
}

// Run runs the contract on stores made by open, a fresh one per case.
func Run(t *testing.T, open func(t *testing.T) Store) {
	for _, c := range []struct {
		name string
		f    func(t *testing.T, s Store)
	}{
		{"ReplayCountsOnce", testReplayCountsOnce},
		{"RoundTrip", testRoundTrip},
		{"NoLatency", testNoLatency},
		{"Organizations", testOrganizations},
		{"Filters", testFilters},
		{"WindowBoundaries", testWindowBoundaries},
		{"RetryLater", testRetryLater},
		{"Activity", testActivity},
		{"PercentilesAcrossMinutes", testPercentilesAcrossMinutes},
		{"SmallWindowPercentiles", testSmallWindowPercentiles},
		{"StatsOverHours", testStatsOverHours},
		{"PredictionCounts", testPredictionCounts},
		{"StatsByModel", testStatsByModel},
		{"MetricsByModel", testMetricsByModel},
		{"SeriesOverHours", testSeriesOverHours},
		{"Profiles", testProfiles},
		{"MergedProfile", testMergedProfile},
		{"MetricSeries", testMetricSeries},
		{"CompletionGroups", testCompletionGroups},
		{"LLMRollups", testLLMRollups},
		{"AttachToxicity", testAttachToxicity},
		{"Refused", testRefused},
		{"Stream", testStream},
		{"StreamStopsEarly", testStreamStopsEarly},
		{"StreamCancelled", testStreamCancelled},
		{"LargeBatch", testLargeBatch},
		{"ManyModels", testManyModels},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, open(t)) })
	}
}

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Prediction is the suite's i-th prediction of a model: input {"x": i},
// output {"y": 1}, i seconds after the suite's base time.
func Prediction(org, model string, i int, latency float64) eventlog.Prediction {
	return eventlog.Prediction{OrgID: org, ModelID: model, PredictionID: fmt.Sprintf("p%04d", i),
		InputData: json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)), OutputData: json.RawMessage(`{"y":1}`),
		LatencyMS: &latency, Metadata: json.RawMessage(`{}`), Timestamp: base.Add(time.Duration(i) * time.Second)}
}

func write(t *testing.T, s Store, ps ...eventlog.Prediction) {
	t.Helper()
	if err := s.Write(context.Background(), analytics.Batch{Predictions: ps}); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// Stats reads a model's prediction statistics over the suite's first
// hour, failing t on error.
func Stats(t *testing.T, s Store, org, model string) analytics.PredictionStats {
	t.Helper()
	st, err := s.PredictionStats(context.Background(), org, model, analytics.Range{From: base, To: base.Add(time.Hour)})
	if err != nil {
		t.Fatalf("PredictionStats: %v", err)
	}
	return st
}

// testReplayCountsOnce writes a batch, then the same events again, whole
// and in part, in other batch shapes: rows and rollups count each event
// once.
func testReplayCountsOnce(t *testing.T, s Store) {
	var ps []eventlog.Prediction
	for i := range 150 { // three minutes
		ps = append(ps, Prediction("o1", "m1", i, float64(i%10)))
	}
	write(t, s, ps...)
	write(t, s, ps...)
	write(t, s, ps[40:90]...)
	write(t, s, append(ps[:1:1], ps[149])...)
	st := Stats(t, s, "o1", "m1")
	if st.TotalPredictions != 150 || *st.MinLatencyMS != 0 || *st.MaxLatencyMS != 9 || *st.AvgLatencyMS != 4.5 {
		t.Fatalf("got %d predictions, latency min %v max %v avg %v; want 150, 0, 9, 4.5",
			st.TotalPredictions, *st.MinLatencyMS, *st.MaxLatencyMS, *st.AvgLatencyMS)
	}
	// Latencies 0..9, fifteen of each, replays included or not.
	var latencies []float64
	for i := range 150 {
		latencies = append(latencies, float64(i/15))
	}
	percentiles(t, st, latencies)
	rows, err := s.Predictions(context.Background(), analytics.PredictionFilter{OrgID: "o1", ModelID: "m1", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 150 || rows[0].PredictionID != "p0149" {
		t.Fatalf("got %d rows, want 150 newest first", len(rows))
	}
}

// percentiles checks p50, p95 and p99 against the linear interpolation
// of the sorted latencies (NumPy's default): within 1e-9 relative for up
// to quantile.ExactLimit latencies, within the sketch's 1% beyond.
func percentiles(t *testing.T, st analytics.PredictionStats, sorted []float64) {
	t.Helper()
	tolerance := quantile.DefaultAlpha
	if len(sorted) <= quantile.ExactLimit {
		tolerance = 1e-9
	}
	for _, c := range []struct {
		name string
		got  *float64
		q    float64
	}{{"p50", st.P50LatencyMS, 0.5}, {"p95", st.P95LatencyMS, 0.95}, {"p99", st.P99LatencyMS, 0.99}} {
		want := linear(sorted, c.q)
		if c.got == nil {
			t.Errorf("got no %s, want %v", c.name, want)
		} else if math.Abs(*c.got-want) > tolerance*math.Abs(want) {
			t.Errorf("got %s %v, want %v within %v relative of %d latencies", c.name, *c.got, want, tolerance, len(sorted))
		}
	}
}

// linear is numpy.quantile(sorted, q) with its default method="linear".
func linear(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	j := int(h)
	if j+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[j] + (h-float64(j))*(sorted[j+1]-sorted[j])
}

// testSmallWindowPercentiles is issue 11's case: latencies 9 and 12, in
// minutes of two hours, read over the minutes and over whole hours; and a
// window of up to quantile.ExactLimit latencies over many minutes: the
// percentiles interpolate exactly, as NumPy's do.
func testSmallWindowPercentiles(t *testing.T, s Store) {
	nine, twelve := Prediction("o1", "m1", 1, 9), Prediction("o1", "m1", 2, 12)
	nine.Timestamp, twelve.Timestamp = base.Add(-time.Minute), base.Add(time.Hour+time.Minute)
	write(t, s, nine)
	write(t, s, twelve)
	for _, r := range []analytics.Range{
		{From: base.Add(-time.Hour), To: base.Add(3 * time.Hour)},          // whole hours
		{From: base.Add(-2 * time.Minute), To: base.Add(62 * time.Minute)}, // minutes and an hour
	} {
		st, err := s.PredictionStats(context.Background(), "o1", "m1", r)
		if err != nil {
			t.Fatalf("PredictionStats: %v", err)
		}
		if st.TotalPredictions != 2 || *st.AvgLatencyMS != 10.5 {
			t.Fatalf("got %d predictions, avg %v; want 2, 10.5", st.TotalPredictions, *st.AvgLatencyMS)
		}
		percentiles(t, st, []float64{9, 12}) // 10.5, 11.85, 11.97
	}
	var ps []eventlog.Prediction
	var latencies []float64
	for i := range quantile.ExactLimit {
		latency := math.Round(float64(i*7919%1000)*1.37) / 10
		p := Prediction("o2", "m1", i, latency)
		p.Timestamp = base.Add(time.Duration(i) * 17 * time.Second)
		ps, latencies = append(ps, p), append(latencies, latency)
	}
	for lo := 0; lo < len(ps); lo += 50 {
		write(t, s, ps[lo:min(lo+50, len(ps))]...)
	}
	st, err := s.PredictionStats(context.Background(), "o2", "m1", analytics.Range{From: base, To: base.Add(2 * time.Hour)})
	if err != nil {
		t.Fatalf("PredictionStats: %v", err)
	}
	slices.Sort(latencies)
	percentiles(t, st, latencies)
}

// testPercentilesAcrossMinutes spreads latencies 1..1000 over many
// minutes, written in several batches: the merged sketches give every
// percentile within the bound.
func testPercentilesAcrossMinutes(t *testing.T, s Store) {
	var ps []eventlog.Prediction
	for i := range 1000 {
		p := Prediction("o1", "m1", i, float64(i+1))
		p.Timestamp = base.Add(time.Duration(i) * 3 * time.Second) // 50 minutes
		ps = append(ps, p)
	}
	for lo := 0; lo < len(ps); lo += 170 {
		write(t, s, ps[lo:min(lo+170, len(ps))]...)
	}
	st := Stats(t, s, "o1", "m1")
	if st.TotalPredictions != 1000 {
		t.Fatalf("got %d predictions, want 1000", st.TotalPredictions)
	}
	var latencies []float64
	for i := range 1000 {
		latencies = append(latencies, float64(i+1))
	}
	percentiles(t, st, latencies)
}

func testRoundTrip(t *testing.T, s Store) {
	p := Prediction("o1", "m1", 7, 12.5)
	p.Metadata = json.RawMessage(`{"region": "eu", "nested": {"a": [1, 2.5, "三"]}}`)
	q := Prediction("o1", "m1", 8, 0)
	q.LatencyMS = nil
	write(t, s, p, q)
	got, err := s.Prediction(context.Background(), "o1", "m1", "p0007")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.InputData) != `{"x":7}` || string(got.Metadata) != string(p.Metadata) || *got.LatencyMS != 12.5 || !got.Timestamp.Equal(p.Timestamp) {
		t.Fatalf("got %+v, want %+v", got, p)
	}
	if got, _ := s.Prediction(context.Background(), "o1", "m1", "p0008"); got.LatencyMS != nil {
		t.Fatalf("got latency %v, want none", *got.LatencyMS)
	}
	if st := Stats(t, s, "o1", "m1"); st.TotalPredictions != 2 || *st.AvgLatencyMS != 12.5 {
		t.Fatalf("got %d predictions, avg latency %v; want 2 and 12.5 over the one that reported it", st.TotalPredictions, *st.AvgLatencyMS)
	}
}

// testNoLatency: a minute whose predictions report no latency counts
// them, with no latency statistics.
func testNoLatency(t *testing.T, s Store) {
	p := Prediction("o1", "m1", 1, 0)
	p.LatencyMS = nil
	write(t, s, p)
	st := Stats(t, s, "o1", "m1")
	if st.TotalPredictions != 1 || st.AvgLatencyMS != nil || st.P50LatencyMS != nil {
		t.Fatalf("got %d predictions, avg %v, p50 %v; want 1 and no latency", st.TotalPredictions, st.AvgLatencyMS, st.P50LatencyMS)
	}
}

func testOrganizations(t *testing.T, s Store) {
	write(t, s, Prediction("o1", "m1", 1, 1), Prediction("o2", "m1", 1, 1))
	if st := Stats(t, s, "o3", "m1"); st.TotalPredictions != 0 || st.AvgLatencyMS != nil {
		t.Fatalf("got %+v for an organization without predictions, want nothing", st)
	}
	if st := Stats(t, s, "o2", "m1"); st.TotalPredictions != 1 {
		t.Fatalf("got %d predictions for o2, want its own 1", st.TotalPredictions)
	}
	if _, err := s.Prediction(context.Background(), "o3", "m1", "p0001"); err == nil {
		t.Fatalf("got another organization's prediction, want not found")
	}
	rows, _ := s.Predictions(context.Background(), analytics.PredictionFilter{OrgID: "o1", Limit: 100})
	if len(rows) != 1 || rows[0].OrgID != "o1" {
		t.Fatalf("got %d rows for o1, want its own 1", len(rows))
	}
}

func testFilters(t *testing.T, s Store) {
	var ps []eventlog.Prediction
	for i := range 20 {
		ps = append(ps, Prediction("o1", "m1", i, 1))
	}
	write(t, s, append(ps, Prediction("o1", "m2", 100, 1))...)
	f := func(filter analytics.PredictionFilter, want ...string) {
		t.Helper()
		filter.OrgID = "o1"
		rows, err := s.Predictions(context.Background(), filter)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.PredictionID)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Predictions(%+v): got %v, want %v", filter, got, want)
		}
	}
	f(analytics.PredictionFilter{ModelID: "m2", Limit: 10}, "p0100")
	f(analytics.PredictionFilter{ModelID: "m1", Limit: 3}, "p0019", "p0018", "p0017")
	f(analytics.PredictionFilter{ModelID: "m1", Limit: 2, Offset: 18}, "p0001", "p0000")
	f(analytics.PredictionFilter{ModelID: "m1", Limit: 10, Range: analytics.Range{From: base.Add(5 * time.Second), To: base.Add(8 * time.Second)}},
		"p0007", "p0006", "p0005")
}

// testRetryLater writes predictions, then the same prediction ids again
// with later times, as a client retry does: each id is stored and counted
// once, with its first time.
func testRetryLater(t *testing.T, s Store) {
	var first, retry []eventlog.Prediction
	for i := range 30 {
		p := Prediction("o1", "m1", i, 1)
		first = append(first, p)
		p.Timestamp = p.Timestamp.Add(20 * time.Minute)
		retry = append(retry, p)
	}
	write(t, s, first...)
	write(t, s, retry...)
	if st := Stats(t, s, "o1", "m1"); st.TotalPredictions != 30 {
		t.Fatalf("got %d predictions after a retry, want 30", st.TotalPredictions)
	}
	got, err := s.Prediction(context.Background(), "o1", "m1", "p0003")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Timestamp.Equal(first[3].Timestamp) {
		t.Fatalf("got time %v, want the first one %v", got.Timestamp, first[3].Timestamp)
	}
}

func testActivity(t *testing.T, s Store) {
	write(t, s, Prediction("o1", "m1", 1, 1), Prediction("o1", "m1", 5, 1), Prediction("o1", "m2", 2, 1), Prediction("o2", "m3", 9, 1))
	got, err := s.Activity(context.Background(), "o1", []string{"m1", "m2", "m3", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["m1"].Predictions != 2 || got["m2"].Predictions != 1 {
		t.Fatalf("got %+v, want m1: 2 and m2: 1 only (m3 is another organization's)", got)
	}
	if want := base.Add(5 * time.Second); got["m1"].Last == nil || !got["m1"].Last.Equal(want) {
		t.Fatalf("got last %v for m1, want %v", got["m1"].Last, want)
	}
	if none, _ := s.Activity(context.Background(), "o1", nil); len(none) != 0 {
		t.Fatalf("got %v for no models, want nothing", none)
	}
}
