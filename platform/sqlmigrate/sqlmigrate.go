// Package sqlmigrate applies a folder of SQL migrations to a database, each
// file once, in its own transaction, in file-name order, recording each in
// the schema_migrations table. The transactional store's engines
// (sqlstore) and the embedded analytical store (analytics/sqlite)
// both migrate with it.
//
// It imports nothing of Vigil.
package sqlmigrate

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Engine is what Apply needs to know of the database. The zero value
// suits a database that one process owns and that takes ? placeholders.
type Engine struct {
	// Name is the engine's name, e.g. "sqlite": migration files named
	// NNNN_x.Name.sql apply to it alone, NNNN_x.sql to every engine.
	Name string
	// Numbered says the engine takes $1, $2 placeholders instead of ?.
	Numbered bool
	// Lock serialises migrations across processes on conn; nil when one
	// process owns the database.
	Lock func(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
	// Classify wraps an engine error with what it means to the caller
	// (whether to retry); nil returns engine errors as they are.
	Classify func(error) error
}

func (e Engine) classify(err error) error {
	if e.Classify == nil || err == nil {
		return err
	}
	return e.Classify(err)
}

// Apply applies the migrations in dir of fsys that are not applied yet,
// each in its own transaction, in file-name order. Concurrent starts of
// several replicas are serialised by the engine's Lock.
func Apply(ctx context.Context, db *sql.DB, e Engine, fsys fs.FS, dir string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return e.classify(err)
	}
	defer conn.Close()
	if e.Lock != nil {
		unlock, err := e.Lock(ctx, conn)
		if err != nil {
			return fmt.Errorf("lock migrations: %w", e.classify(err))
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", e.classify(err))
	}
	applied := map[int64]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return e.classify(err)
	}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return e.classify(err)
		}
		applied[v] = true
	}
	rows.Close()
	files, err := e.files(fsys, dir)
	if err != nil {
		return err
	}
	record := `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`
	if e.Numbered {
		record = `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`
	}
	for _, f := range files {
		if applied[f.version] {
			continue
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, f.name))
		if err != nil {
			return fmt.Errorf("read migration %s: %w", f.name, err)
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return e.classify(err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", f.name, e.classify(err))
		}
		if _, err := tx.ExecContext(ctx, record, f.version, f.name, time.Now().UnixMicro()); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("record migration %s: %w", f.name, e.classify(err))
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit migration %s: %w", f.name, e.classify(err))
		}
	}
	return nil
}

type file struct {
	version int64
	name    string
}

// files lists the files of dir that apply to this engine: NNNN_x.sql and
// NNNN_x.<Name>.sql.
func (e Engine) files(fsys fs.FS, dir string) ([]file, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []file
	seen := map[int64]string{}
	for _, entry := range entries {
		name := entry.Name()
		base, ok := strings.CutSuffix(name, ".sql")
		if !ok {
			continue
		}
		if i := strings.IndexByte(base, '.'); i >= 0 && base[i+1:] != e.Name {
			continue
		}
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, name, v)
		}
		seen[v] = name
		out = append(out, file{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b file) int { return int(a.version - b.version) })
	return out, nil
}
