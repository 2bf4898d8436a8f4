package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// benchBatch is the n-th batch of 1000 predictions of one model, shaped
// as BenchmarkBatchIngest logs them, within one minute. With
// VIGIL_BENCH_WRITE_IDS=random the prediction ids are random UUIDs, as
// clients that make their own ids send them, instead of the benchmark's
// counters.
func benchBatch(n int) []eventlog.Prediction {
	random := os.Getenv("VIGIL_BENCH_WRITE_IDS") == "random"
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ps := make([]eventlog.Prediction, 1000)
	for j := range ps {
		latency := float64(j%50 + 1)
		ps[j] = eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%d-%d", n, j),
			InputData:  json.RawMessage(fmt.Sprintf(`{"age":%d,"plan":"pro"}`, j%90)),
			OutputData: json.RawMessage(fmt.Sprintf(`{"churn":%t}`, j%3 == 0)), Metadata: json.RawMessage(`{}`),
			LatencyMS: &latency, Timestamp: at.Add(time.Duration(n*1000+j) * time.Microsecond)}
		if random {
			id := make([]byte, 16)
			_, _ = rand.Read(id)
			ps[j].PredictionID = hex.EncodeToString(id)
		}
		ps[j].Parse()
	}
	return ps
}

// BenchmarkWrite compares, in the same run, Vigil's sink (Store.Write: new
// rows only, rollups of the minute and hour) with a bare SQLite insert of
// the same rows through the same driver and connection settings: one
// transaction per batch, the same prepared 100-row INSERT into a table of
// the same columns and primary key, nothing else. Each op is one batch of
// 1000 predictions; rows/s is reported.
func BenchmarkWrite(b *testing.B) {
	b.Run("vigil", func(b *testing.B) {
		s, err := Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		n := 0
		for b.Loop() {
			b.StopTimer()
			ps := benchBatch(n)
			n++
			b.StartTimer()
			if err := s.Write(context.Background(), analytics.Batch{Predictions: ps}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*1000)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("bare", func(b *testing.B) {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "bare.db")+
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE predictions (org_id TEXT NOT NULL, model_id TEXT NOT NULL, event_id TEXT NOT NULL,
			ts BIGINT NOT NULL, latency_ms REAL, input_data TEXT NOT NULL, output_data TEXT NOT NULL, metadata TEXT NOT NULL,
			PRIMARY KEY (org_id, model_id, event_id)) WITHOUT ROWID`); err != nil {
			b.Fatal(err)
		}
		cols := []string{"org_id", "model_id", "event_id", "ts", "latency_ms", "input_data", "output_data", "metadata"}
		stmt := insertSQL("predictions", cols, chunkRows, false)
		stmt = stmt[:len(stmt)-len(" ON CONFLICT DO NOTHING")]
		n := 0
		for b.Loop() {
			b.StopTimer()
			ps := benchBatch(n)
			n++
			b.StartTimer()
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			st, err := tx.Prepare(stmt)
			if err != nil {
				b.Fatal(err)
			}
			for lo := 0; lo < len(ps); lo += chunkRows {
				args := make([]any, 0, chunkRows*len(cols))
				for _, p := range ps[lo : lo+chunkRows] {
					in, out, meta := p.Documents()
					args = append(args, p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), nullFloat(p.LatencyMS), in, out, meta)
				}
				if _, err := st.Exec(args...); err != nil {
					b.Fatal(err)
				}
			}
			st.Close()
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*1000)/b.Elapsed().Seconds(), "rows/s")
	})
}
