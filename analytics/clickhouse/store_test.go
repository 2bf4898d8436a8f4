package clickhouse_test

import (
	"context"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/analytics/analyticstest"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/processors/processortest"
)

func TestContract(t *testing.T) {
	analyticstest.Run(t, func(t *testing.T) analyticstest.Store { return clickhouse.New(open(t)) })
}

// TestProcessor runs the processor over the store: poison events set
// aside, retried writes.
func TestProcessor(t *testing.T) {
	processortest.Run(t, func(t *testing.T) analyticstest.Store { return clickhouse.New(open(t)) })
}

func TestFillHours(t *testing.T) {
	conn := open(t)
	analyticstest.FillHours(t, clickhouse.New(conn), func(t *testing.T) {
		for _, table := range []string{"prediction_hours", "metric_hours", "completion_hours"} {
			if err := conn.Exec(context.Background(), `DROP TABLE `+table); err != nil {
				t.Fatal(err)
			}
		}
	}, func(t *testing.T) analyticstest.Store { return clickhouse.New(conn) })
}

// open connects to a database of its own.
func open(t *testing.T) driver.Conn {
	conn, err := clickhouse.Open(testenv.ClickHouseDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
