package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
)

// TestPredictionsByArrival upgrades a store whose predictions were kept in
// the WITHOUT ROWID table of migration 0001 (analytics migration 0041
// moves them to a rowid table with a unique key index): every stored
// prediction is kept with its columns and read in (ts, event_id) order,
// and one written again after the upgrade is stored and counted once.
func TestPredictionsByArrival(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	db := migratedBefore(t, dir, "0041", "predictions")
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, id := range []string{"p2", "p1"} {
		if _, err := db.Exec(`INSERT INTO predictions (org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata)
			VALUES ('o1', 'm1', ?, ?, 12.5, '{"age":3}', '{"churn":true}', '{"a":1}')`, id, at.UnixMicro()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO prediction_minutes (org_id, model_id, minute, predictions, latency_count, latency_sum)
		VALUES ('o1', 'm1', ?, 2, 2, 25)`, at.Truncate(time.Minute).UnixMicro()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Prediction(ctx, "o1", "m1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	in, out, meta := p.Documents()
	if *p.LatencyMS != 12.5 || in != `{"age":3}` || out != `{"churn":true}` || meta != `{"a":1}` || !p.Timestamp.Equal(at) {
		t.Errorf("got %v %s %s %s %v, want the prediction stored before the upgrade", *p.LatencyMS, in, out, meta, p.Timestamp)
	}
	latency := 12.5
	again := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: "p1", LatencyMS: &latency, Timestamp: at,
		InputData: json.RawMessage(`{"age":3}`), OutputData: json.RawMessage(`{"churn":true}`)}
	fresh := again
	fresh.PredictionID = "p0"
	if err := s.Write(ctx, analytics.Batch{Predictions: []eventlog.Prediction{again, fresh}}); err != nil {
		t.Fatal(err)
	}
	r := analytics.Range{From: at.Add(-time.Hour), To: at.Add(time.Hour)}
	ps, err := s.Predictions(ctx, analytics.PredictionFilter{OrgID: "o1", ModelID: "m1", Range: r, Oldest: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.PredictionID)
	}
	if len(ids) != 3 || ids[0] != "p0" || ids[1] != "p1" || ids[2] != "p2" {
		t.Errorf("got %v, want [p0 p1 p2]: each once, in (ts, event_id) order", ids)
	}
	stats, err := s.PredictionStats(ctx, "o1", "m1", r)
	if err != nil {
		t.Fatal(err)
	}
	if stats.TotalPredictions != 3 {
		t.Errorf("got %d predictions counted after the upgrade, want 3 (p1 once)", stats.TotalPredictions)
	}
	check, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	rows, err := check.Query(`EXPLAIN QUERY PLAN SELECT event_id FROM predictions
		WHERE org_id = 'o1' AND model_id = 'm1' AND ts >= 0 ORDER BY ts DESC, event_id DESC LIMIT 10`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(detail, "TEMP B-TREE") || !strings.Contains(detail, "predictions_by_time") {
			t.Errorf("got plan step %q, want the newest predictions read from predictions_by_time without a sort", detail)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
