package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/testenv"
)

// benchBatch is the n-th batch of 1000 predictions of one model within
// one minute, shaped as BenchmarkBatchIngest logs them, at contiguous
// offsets of one partition as a processor reads them.
func benchBatch(n int) analytics.Batch {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := analytics.Batch{Positions: map[analytics.EventKey]analytics.Position{}}
	for j := range 1000 {
		i := n*1000 + j
		latency := float64(j%50 + 1)
		p := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%d-%d", n, j),
			InputData:  json.RawMessage(fmt.Sprintf(`{"age":%d,"plan":"pro"}`, j%90)),
			OutputData: json.RawMessage(fmt.Sprintf(`{"churn":%t}`, j%3 == 0)), Metadata: json.RawMessage(`{}`),
			LatencyMS: &latency, Timestamp: at.Add(time.Duration(i%60_000) * time.Millisecond)}
		p.Parse()
		b.Predictions = append(b.Predictions, p)
		b.Positions[analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}] = analytics.Position{Offset: int64(i)}
	}
	return b
}

// countingConn counts the statements a Store sends: reads (one round
// trip each) and INSERTs (PrepareBatch then Send: two round trips each on
// the native protocol, the table's header back, then the data and the
// server's end of stream).
type countingConn struct {
	driver.Conn
	// idReads and rollupReads count the reads of prediction_ids and of
	// the prediction rollups among queries.
	queries, idReads, rollupReads, inserts atomic.Int64
}

func (c *countingConn) reset() {
	c.queries.Store(0)
	c.idReads.Store(0)
	c.rollupReads.Store(0)
	c.inserts.Store(0)
}

func (c *countingConn) read(q string) {
	c.queries.Add(1)
	switch {
	case strings.Contains(q, "FROM prediction_ids"):
		c.idReads.Add(1)
	case strings.Contains(q, "FROM prediction_minutes"), strings.Contains(q, "FROM prediction_hours"):
		c.rollupReads.Add(1)
	}
}

func (c *countingConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	c.read(q)
	return c.Conn.Query(ctx, q, args...)
}

func (c *countingConn) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	c.read(q)
	return c.Conn.QueryRow(ctx, q, args...)
}

func (c *countingConn) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	c.inserts.Add(1)
	return c.Conn.PrepareBatch(ctx, q, opts...)
}

// BenchmarkWrite compares, in the same run, Vigil's sink (Store.Write of
// logged 1000-prediction batches of one model into one minute, as a
// processor writes them under steady load: the dedup read, the rows, their
// ids and both rollups; the statements it sends are counted) with a bare native insert of the same rows (one
// PrepareBatch INSERT INTO predictions, one Send). Each op is one batch;
// rows/s is reported.
func BenchmarkWrite(b *testing.B) {
	conn, err := Open(testenv.ClickHouseDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	counter := &countingConn{Conn: conn}
	s := New(counter)
	if err := s.ensure(ctx); err != nil {
		b.Fatal(err)
	}
	n := 0
	b.Run("vigil", func(b *testing.B) {
		rows := 0
		counter.reset()
		for b.Loop() {
			b.StopTimer()
			batch := benchBatch(n)
			n++
			b.StartTimer()
			if err := s.Write(ctx, batch); err != nil {
				b.Fatal(err)
			}
			rows += len(batch.Predictions)
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(counter.queries.Load())/float64(b.N), "reads/op")
		b.ReportMetric(float64(counter.inserts.Load())/float64(b.N), "inserts/op")
	})
	b.Run("bare", func(b *testing.B) {
		if err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS bare_predictions AS predictions`); err != nil {
			b.Fatal(err)
		}
		rows := 0
		for b.Loop() {
			b.StopTimer()
			batch := benchBatch(n)
			n++
			b.StartTimer()
			if err := bareInsert(ctx, conn, batch); err != nil {
				b.Fatal(err)
			}
			rows += len(batch.Predictions)
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkWriteLargeModel writes 1000-prediction batches with random
// (UUID) ids to a model that already holds VIGIL_BENCH_STORED predictions
// (1,000,000 unless set), as a processor does under steady load, through a
// store that keeps id filters ("filter") and one that keeps none and reads
// prediction_ids for every batch ("read"), beside a bare native insert of
// the same rows ("bare"), in the same run.
func BenchmarkWriteLargeModel(b *testing.B) {
	stored := 1_000_000
	if v := os.Getenv("VIGIL_BENCH_STORED"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("VIGIL_BENCH_STORED=%q: %v", v, err)
		}
		stored = n
	}
	conn, err := Open(testenv.ClickHouseDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	if err := New(conn).ensure(ctx); err != nil {
		b.Fatal(err)
	}
	// The stored ids, made on the server.
	if err := conn.Exec(ctx, `INSERT INTO prediction_ids (org_id, model_id, event_id, ts, origin)
		SELECT 'o1', 'm1', toString(generateUUIDv4()), toInt64(number), concat('0/', toString(number)) FROM numbers(?)`, stored); err != nil {
		b.Fatal(err)
	}
	// Settled, as a table is long after its rows came in.
	if err := conn.Exec(ctx, `OPTIMIZE TABLE prediction_ids FINAL`); err != nil {
		b.Fatal(err)
	}
	if err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS bare_predictions AS predictions`); err != nil {
		b.Fatal(err)
	}
	offset := stored
	next := func() analytics.Batch {
		batch := benchBatch(0)
		batch.Positions = map[analytics.EventKey]analytics.Position{}
		for i := range batch.Predictions {
			p := &batch.Predictions[i]
			p.PredictionID = uuid.NewString()
			batch.Positions[analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}] = analytics.Position{Offset: int64(offset)}
			offset++
		}
		return batch
	}
	for _, bb := range []struct {
		name  string
		bytes int
	}{{"filter", 0}, {"read", -1}} {
		b.Run(bb.name, func(b *testing.B) {
			counter := &countingConn{Conn: conn}
			s := New(counter)
			s.IDFilterBytes = bb.bytes
			// The first batch loads the filter and the rollups.
			if err := s.Write(ctx, next()); err != nil {
				b.Fatal(err)
			}
			counter.reset()
			rows := 0
			for b.Loop() {
				b.StopTimer()
				batch := next()
				b.StartTimer()
				if err := s.Write(ctx, batch); err != nil {
					b.Fatal(err)
				}
				rows += len(batch.Predictions)
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(counter.queries.Load())/float64(b.N), "reads/op")
		})
	}
	b.Run("bare", func(b *testing.B) {
		rows := 0
		for b.Loop() {
			b.StopTimer()
			batch := next()
			b.StartTimer()
			if err := bareInsert(ctx, conn, batch); err != nil {
				b.Fatal(err)
			}
			rows += len(batch.Predictions)
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}

// bareInsert is the baseline: the batch's rows in one native INSERT into
// bare_predictions, a table like predictions.
func bareInsert(ctx context.Context, conn driver.Conn, batch analytics.Batch) error {
	ins, err := conn.PrepareBatch(ctx, `INSERT INTO bare_predictions
		(org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, p := range batch.Predictions {
		in, out, meta := p.Documents()
		if err := ins.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), p.LatencyMS, in, out, meta); err != nil {
			return err
		}
	}
	return ins.Send()
}
