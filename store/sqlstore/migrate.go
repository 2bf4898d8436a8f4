package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Migrate applies the migrations in dir of fsys that are not applied yet,
// each in its own transaction, in file-name order. Concurrent starts of
// several replicas are serialised by the dialect's migration lock.
func (s *DB) Migrate(ctx context.Context, fsys fs.FS, dir string) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrap(err)
	}
	defer conn.Close()
	if s.d.LockMigrations != nil {
		unlock, err := s.d.LockMigrations(ctx, conn)
		if err != nil {
			return fmt.Errorf("lock migrations: %w", s.wrap(err))
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", s.wrap(err))
	}
	applied := map[int64]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return s.wrap(err)
	}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return s.wrap(err)
		}
		applied[v] = true
	}
	rows.Close()
	files, err := s.migrationFiles(fsys, dir)
	if err != nil {
		return err
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
			return s.wrap(err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", f.name, s.wrap(err))
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			f.version, f.name, time.Now().UnixMicro()); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("record migration %s: %w", f.name, s.wrap(err))
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit migration %s: %w", f.name, s.wrap(err))
		}
	}
	return nil
}

type migrationFile struct {
	version int64
	name    string
}

// migrationFiles lists the files of dir that apply to this dialect: NNNN_x.sql
// and NNNN_x.<dialect>.sql.
func (s *DB) migrationFiles(fsys fs.FS, dir string) ([]migrationFile, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []migrationFile
	seen := map[int64]string{}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".sql")
		if !ok {
			continue
		}
		if i := strings.IndexByte(base, '.'); i >= 0 && base[i+1:] != s.d.Name {
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
		out = append(out, migrationFile{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b migrationFile) int { return int(a.version - b.version) })
	return out, nil
}
