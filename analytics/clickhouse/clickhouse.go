// Package clickhouse connects Vigil to ClickHouse, its scale-out analytical
// store.
//
// It implements the analytics contract and imports it, the eventlog
// contract, the store errors, the schemas and the maths tree; it must not
// import the processors, the query API or any other code that uses it.
package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Open returns a connection pool for url (clickhouse://host:9000/db). It
// connects lazily; Check proves the server answers.
func Open(url string) (driver.Conn, error) {
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		return nil, fmt.Errorf("clickhouse url: %w", err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %w", err)
	}
	return conn, nil
}

// Check pings the server.
func Check(ctx context.Context, conn driver.Conn) error {
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	return nil
}
