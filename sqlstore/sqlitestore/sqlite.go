// Package sqlitestore opens the transactional store on SQLite, the embedded
// default: a file in the data folder, through a pure-Go driver, nothing to
// install.
//
// It imports sqlstore and the schemas; it must not import the code that
// uses the store.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/sqlstore"
)

// FileName is the database file inside the data folder.
const FileName = "vigil.db"

// Dialect is SQLite's: ? placeholders, writers serialised by BEGIN
// IMMEDIATE transactions, one process per file.
var Dialect = sqlstore.Dialect{
	Name:       "sqlite",
	IsConflict: func(err error) bool { return code(err)&0xff == sqlite3.SQLITE_CONSTRAINT && isUnique(code(err)) },
	IsUnavailable: func(err error) bool {
		c := code(err) & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	},
}

func code(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

func isUnique(c int) bool {
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// Open opens (creating it if needed) the store in dir and applies the
// migrations. Commits are fsynced (synchronous=FULL) before they return.
func Open(ctx context.Context, dir string) (*sqlstore.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder %s: %w", dir, err)
	}
	file := filepath.Join(dir, FileName)
	dsn := "file:" + file +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db.SetMaxOpenConns(8)
	s := sqlstore.New(db, Dialect)
	if err := s.Migrate(ctx, schemas.SQL, "sql"); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate sqlite %s: %w", file, err)
	}
	return s, nil
}
