package storetest

import (
	"database/sql"
	"io/fs"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/schemas"
)

// MigrationFiles returns the names of the migrations in schemas.SQL that
// apply to engine ("sqlite", "postgres"): NNNN_x.sql and NNNN_x.engine.sql.
func MigrationFiles(t testing.TB, engine string) []string {
	t.Helper()
	entries, err := fs.ReadDir(schemas.SQL, "sql")
	if err != nil {
		t.Fatalf("list migrations: %v", err)
	}
	var out []string
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".sql")
		if !ok {
			continue
		}
		if _, only, qualified := strings.Cut(base, "."); qualified && only != engine {
			continue
		}
		out = append(out, e.Name())
	}
	if len(out) == 0 {
		t.Fatalf("no migrations for %s in schemas.SQL", engine)
	}
	return out
}

// Migration is a row of schema_migrations.
type Migration struct {
	Version   int64
	Name      string
	AppliedAt int64
}

// AppliedMigrations returns the rows of schema_migrations, by version.
func AppliedMigrations(t testing.TB, db *sql.DB) []Migration {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT version, name, applied_at FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	defer rows.Close()
	var out []Migration
	for rows.Next() {
		var m Migration
		if err := rows.Scan(&m.Version, &m.Name, &m.AppliedAt); err != nil {
			t.Fatalf("read schema_migrations: %v", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	return out
}

// CheckMigrations fails the test unless schema_migrations holds each of
// engine's migrations exactly once.
func CheckMigrations(t testing.TB, db *sql.DB, engine string) []Migration {
	t.Helper()
	applied := AppliedMigrations(t, db)
	files := MigrationFiles(t, engine)
	var names []string
	for _, m := range applied {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != strings.Join(files, ",") {
		t.Errorf("schema_migrations: got %d rows %v, want %d rows %v", len(names), names, len(files), files)
	}
	return applied
}
