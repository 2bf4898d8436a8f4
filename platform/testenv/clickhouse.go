package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ClickHouseDatabase creates an empty database on the test ClickHouse
// server and returns a URL that uses it; the database is dropped when the
// test ends.
func ClickHouseDatabase(t testing.TB) string {
	t.Helper()
	base := URL(t, ClickHouse)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	opts, err := clickhouse.ParseDSN(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatalf("open clickhouse: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		conn.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// Dropping the tables of a database a benchmark filled at 10k rows a
		// second takes ClickHouse 18.16 longer than 30 s while it merges.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := dropClickHouseDatabase(ctx, conn, name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		conn.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	u.Path = "/" + name
	return u.String()
}

// dropClickHouseDatabase drops the database's materialized views, then its
// tables, then the database. ClickHouse 18.16's DROP DATABASE alone may
// refuse ("New table appeared in database being dropped") when a
// materialized view's inner table goes with the view while it walks the
// tables.
func dropClickHouseDatabase(ctx context.Context, conn driver.Conn, name string) error {
	rows, err := conn.Query(ctx, "SELECT name FROM system.tables WHERE database = ? ORDER BY engine = 'MaterializedView' DESC, name", name)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range tables {
		if err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+name+".`"+t+"`"); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	return conn.Exec(ctx, "DROP DATABASE "+name)
}
