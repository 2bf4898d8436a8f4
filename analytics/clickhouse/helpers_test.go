package clickhouse

import (
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/platform/testenv"
)

// openConn opens a connection to a database of the test's own, closed
// when the test ends.
func openConn(t testing.TB) driver.Conn {
	t.Helper()
	conn, err := Open(testenv.ClickHouseDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
