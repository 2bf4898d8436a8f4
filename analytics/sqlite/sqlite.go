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
	"sync"

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
	// wmu queues this process's write transactions (beginWrite).
	wmu sync.Mutex
}

// Open opens (creating it if needed) the store in dir and applies its
// migrations.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder %s: %w", dir, err)
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
		return nil, fmt.Errorf("migrate analytics %s: %w", filepath.Join(dir, FileName), err)
	}
	st := &Store{db: db}
	if err := st.fillHours(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate analytics: %w", err)
	}
	st.ckpt = startCheckpointer(db)
	return st, nil
}

// beginWrite starts a write transaction once this process's other write
// transactions of the store are done; end rolls it back unless it was
// committed and lets the next one in. SQLite admits one writer at a time
// and makes the others retry on its busy handler, whose sleeps grow from
// 1 ms to 100 ms: a writer that found the lock taken slept on after it
// was free, and under load kept losing it to the one that had it (the
// processor's profiles waited 1.8 s a million predictions behind its
// store writes). Writers of other processes still meet the busy handler.
func (s *Store) beginWrite(ctx context.Context) (tx *sql.Tx, end func(), err error) {
	s.wmu.Lock()
	if tx, err = s.db.BeginTx(ctx, nil); err != nil {
		s.wmu.Unlock()
		return nil, nil, err
	}
	return tx, func() {
		_ = tx.Rollback() // ErrTxDone after a commit
		s.wmu.Unlock()
	}, nil
}

// Close closes the store.
func (s *Store) Close() error {
	s.ckpt.stop()
	return s.db.Close()
}

// Ping checks the store answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
