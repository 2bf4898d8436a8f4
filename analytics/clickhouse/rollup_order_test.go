package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// hoursFirstConn records, as each INSERT into the minute rollup starts,
// how many predictions the hour rollup already counts.
type hoursFirstConn struct {
	driver.Conn
	t     *testing.T
	hours []uint64
}

func (c *hoursFirstConn) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	if strings.Contains(q, "INSERT INTO prediction_minutes") {
		var n uint64
		if err := c.Conn.QueryRow(ctx, `SELECT sum(predictions) FROM prediction_hours FINAL`).Scan(&n); err != nil {
			c.t.Errorf("reading the hour rollup: %v", err)
		}
		c.hours = append(c.hours, n)
	}
	return c.Conn.PrepareBatch(ctx, q, opts...)
}

// TestHourRollupFirst: the hour rollup counts a batch before the minute
// rollup's INSERT starts, so that a model's prediction count (read from
// the hour rollup) is never behind its statistics of the last minutes
// (read from the minute rollup) while a batch is being written.
func TestHourRollupFirst(t *testing.T) {
	conn := &hoursFirstConn{Conn: openConn(t), t: t}
	s, ctx := New(conn), context.Background()
	now := time.Now().UTC()
	written := 0
	for i, n := range []int{3, 4} {
		var b analytics.Batch
		for j := range n {
			b.Predictions = append(b.Predictions, eventlog.Prediction{OrgID: "o1", ModelID: "m1",
				PredictionID: fmt.Sprintf("p%d-%d", i, j), InputData: []byte(`{}`), OutputData: []byte(`{}`),
				Metadata: []byte(`{}`), Timestamp: now})
		}
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		written += n
		if got := conn.hours[len(conn.hours)-1]; got != uint64(written) {
			t.Fatalf("batch %d: got %d predictions in the hour rollup as the minute rollup's INSERT started, want %d", i, got, written)
		}
	}
}
