package clickhouse_test

import (
	"context"
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
		s, err := clickhouse.New(context.Background(), conn)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
