package clickhouse_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/store"
)

// TestUnavailable: with ClickHouse cut off (behind a proxy that refuses
// and resets connections), every read fails with an error wrapping
// store.ErrUnavailable, which the API answers with 503; once it is back,
// the same store reads again.
func TestUnavailable(t *testing.T) {
	proxy, url := testenv.Proxied(t, testenv.ClickHouseDatabase(t))
	conn, err := clickhouse.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := clickhouse.New(conn)
	ctx := context.Background()
	r := analytics.Range{From: time.Now().Add(-time.Hour), To: time.Now()}
	reads := []struct {
		name string
		read func() error
	}{
		{"Predictions", func() error {
			_, err := s.Predictions(ctx, analytics.PredictionFilter{OrgID: "o", ModelID: "m", Range: r})
			return err
		}},
		{"Prediction", func() error {
			_, err := s.Prediction(ctx, "o", "m", "p")
			return err
		}},
		{"PredictionStats", func() error { _, err := s.PredictionStats(ctx, "o", "m", r); return err }},
		{"Activity", func() error { _, err := s.Activity(ctx, "o", []string{"m"}); return err }},
		{"MetricSeries", func() error {
			_, err := s.MetricSeries(ctx, analytics.MetricFilter{OrgID: "o", ModelID: "m", MetricType: "accuracy", Range: r},
				analytics.Buckets{Range: r})
			return err
		}},
		{"CompletionGroups", func() error { _, err := s.CompletionGroups(ctx, "o", "m", r); return err }},
		{"DeadLetters", func() error { _, err := s.DeadLetters(ctx, "o", 10); return err }},
	}
	f := func(wantUnavailable bool) {
		t.Helper()
		for _, c := range reads {
			err := c.read()
			if wantUnavailable && !errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("%s while cut off: got %v, want an error wrapping store.ErrUnavailable", c.name, err)
			}
			if !wantUnavailable && err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("%s: got %v, want no error", c.name, err)
			}
		}
	}
	f(false)
	proxy.Cut()
	f(true)
	proxy.Restore()
	f(false)
}
