// Package clickhouse connects Vigil to ClickHouse, its scale-out analytical
// store.
//
// # Writing predictions, and the dedup rule
//
// A processor batch of predictions costs one INSERT per table and, in the
// steady state, no read: the INSERTs are the new rows, their ids, and the
// new versions of the minute and hour rollups the batch touched
// (ReplacingMergeTree by version: reads take the newest with FINAL). The
// ids stored already are found in prediction_ids (no FINAL: every version
// of an id's row holds the log position it was first stored from), read
// only for the ids that the model's id filter may hold: a Bloom filter of
// the model's stored ids (idFilter, 1 false "maybe" in 10,000), loaded
// once from their server-side hashes and kept by the store as it inserts.
// A read of 1000 ids costs a scan of every granule they fall in (8192
// rows each), which grows with the model's size: for random ids, nearly
// every granule of a model of up to 8 million ids (0.3-0.5 s a batch at
// 5 million); the filter spares it where it answers "not stored".
// A filter is trusted within the consumer epoch it was loaded in (see
// Store.toRead: within one, no other writer stores the model's ids) and
// loaded anew in the next.
// A prediction counts once: a new id is stored and counted; an id stored
// from this very log record (a replay after a crash) is counted only where
// a rollup's offsets (the highest log offset per partition it holds) are
// below the record's; an id stored from another record (a client's retry
// of a prediction_id) is neither stored nor counted again.
//
// The rollups are added to in memory: the store keeps the newest buckets it
// wrote per model (rollupCache), and the newest bucket start the model has
// stored; it reads a bucket back (FINAL) only when a batch touches one it
// does not hold that is not after that newest start (a late event of an
// older minute), or when it cannot trust its copy: the log is keyed by
// organization and model, so a model's buckets change only through its
// partition, and the copy is used only while this store has read that
// partition without a gap since writing it (a replay, a rebalance to
// another replica and back, or a failed write all make it read again,
// with the newest start, one max() without FINAL). A stream moving forward
// in time reads no rollup back.
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
