package clickhouse

import (
	"context"
	"slices"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// cancelOnExec cancels its caller's context as the first statement is
// sent, like a process stopping while the store creates its tables.
type cancelOnExec struct {
	driver.Conn
	cancel context.CancelFunc
}

func (c cancelOnExec) Exec(ctx context.Context, q string, args ...any) error {
	c.cancel()
	return c.Conn.Exec(ctx, q, args...)
}

// TestTablesCreatedDespiteCancel: a caller that gives up while the store
// creates its tables leaves every table created when ensure returns, not
// a CREATE still running on the server (which made a test's DROP DATABASE
// fail with "Directory not empty").
func TestTablesCreatedDespiteCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	conn := openConn(t)
	s := New(cancelOnExec{conn, cancel})
	if err := s.ensure(ctx); err == nil {
		t.Fatal("ensure after its context ended: got nil error, want the context's")
	}

	want := openConn(t)
	if err := New(want).ensure(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, all := tableNames(t, conn), tableNames(t, want)
	if !slices.Equal(got, all) {
		t.Errorf("tables after a cancelled ensure: got %v, want %v", got, all)
	}
}

// tableNames lists the tables of conn's database.
func tableNames(t *testing.T, conn driver.Conn) []string {
	t.Helper()
	var names []string
	rows, err := conn.Query(t.Context(), "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
