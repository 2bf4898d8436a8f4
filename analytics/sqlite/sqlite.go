// Package sqlite is the embedded default's analytical store: predictions,
// metrics and LLM completions with their per-minute rollups, in a SQLite
// file of the data folder. Rows and rollups change in one transaction, and
// an event already stored is skipped before it reaches a rollup, so
// replaying a batch never counts an event twice.
//
// It implements the analytics contract and imports it, the eventlog
// contract, the store errors, the schemas, the migration runner
// (platform/sqlmigrate) and the maths tree; it must not import the
// transactional store, the processors, the query API or any other code
// that uses it.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"

	"github.com/vigilhq/vigil/platform/sqlmigrate"
	"github.com/vigilhq/vigil/schemas"
)

// FileName is the analytical store's file inside the data folder.
const FileName = "analytics.db"

// Store is the embedded analytical store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	ckpt *checkpointer // moves the write-ahead log into the file
}

// Open opens (creating it if needed) the store in dir and applies its
// migrations.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=temp_store(MEMORY)"+
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)&_pragma=journal_size_limit(%d)", autoCheckpointPages, 4096*autoCheckpointPages)+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open analytics: %w", err)
	}
	db.SetMaxOpenConns(8)
	if err := sqlmigrate.Apply(ctx, db, sqlmigrate.Engine{Name: "sqlite"}, schemas.Analytics, "analytics/sqlite"); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate analytics: %w", err)
	}
	st := &Store{db: db}
	if err := st.fillHours(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate analytics: %w", err)
	}
	st.ckpt = startCheckpointer(db)
	return st, nil
}

// Close closes the store.
func (s *Store) Close() error {
	s.ckpt.stop()
	return s.db.Close()
}

// Ping checks the store answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
