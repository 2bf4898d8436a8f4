package clickhouse_test

import (
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/query/clickhouse"
	"github.com/vigilhq/vigil/query/querytest"
)

func TestContract(t *testing.T) {
	querytest.Run(t, func(t *testing.T) querytest.Store {
		conn, err := clickhouse.Open(testenv.ClickHouseDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return clickhouse.New(conn)
	})
}
