// Package sqlite is the embedded default's analytical store: predictions,
// metrics and LLM completions with their per-minute rollups, in a SQLite
// file of the data folder. Rows and rollups change in one transaction, and
// an event already stored is skipped before it reaches a rollup, so
// replaying a batch never counts an event twice.
//
// It implements the analytics contract; beside the contracts it imports the
// transactional store's SQLite dialect and migration runner
// (store/sqlitestore, store/sqlstore) and the schemas. It must not import
// the processors, the query API or any other code that uses it.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/store/sqlitestore"
	"github.com/vigilhq/vigil/store/sqlstore"
)

// FileName is the analytical store's file inside the data folder.
const FileName = "analytics.db"

// Store is the embedded analytical store. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	s  *sqlstore.DB
}

// Open opens (creating it if needed) the store in dir and applies its
// migrations.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open analytics: %w", err)
	}
	db.SetMaxOpenConns(8)
	s := sqlstore.New(db, sqlitestore.Dialect)
	if err := s.Migrate(ctx, schemas.Analytics, "analytics/sqlite"); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate analytics: %w", err)
	}
	st := &Store{db: db, s: s}
	if err := st.fillHours(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate analytics: %w", err)
	}
	return st, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Ping checks the store answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
