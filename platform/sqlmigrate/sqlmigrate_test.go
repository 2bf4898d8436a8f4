package sqlmigrate_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"github.com/vigilhq/vigil/platform/sqlmigrate"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// applied returns the names recorded in schema_migrations, by version.
func applied(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestApply: files apply in version order, those of another engine are
// skipped, and a second Apply changes nothing.
func TestApply(t *testing.T) {
	db := open(t)
	fsys := fstest.MapFS{
		"m/0002_more.sql":       {Data: []byte(`INSERT INTO t (v) VALUES (2);`)},
		"m/0001_init.sql":       {Data: []byte(`CREATE TABLE t (v INTEGER);`)},
		"m/0003_x.postgres.sql": {Data: []byte(`THIS IS NOT SQLITE;`)},
		"m/0004_x.sqlite.sql":   {Data: []byte(`INSERT INTO t (v) VALUES (4);`)},
		"m/README.md":           {Data: []byte(`not a migration`)},
	}
	e := sqlmigrate.Engine{Name: "sqlite"}
	for range 2 {
		if err := sqlmigrate.Apply(t.Context(), db, e, fsys, "m"); err != nil {
			t.Fatalf("Apply: got %v, want nil", err)
		}
	}
	if got, want := applied(t, db), []string{"0001_init.sql", "0002_more.sql", "0004_x.sqlite.sql"}; !slices.Equal(got, want) {
		t.Errorf("schema_migrations: got %v, want %v", got, want)
	}
	var sum int
	if err := db.QueryRow(`SELECT SUM(v) FROM t`).Scan(&sum); err != nil || sum != 6 {
		t.Errorf("SUM(v): got %d, %v; want 6, nil (each migration once)", sum, err)
	}
}

// TestApplyRefuses: a misnamed file, two files of one version and a
// failing migration stop Apply with an error naming the file, and the
// failing migration is neither applied nor recorded.
func TestApplyRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"no number", fstest.MapFS{"m/init.sql": {Data: []byte(`SELECT 1;`)}}, "migration init.sql: name must start with a number"},
		{"shared version", fstest.MapFS{"m/0001_a.sql": {Data: []byte(`SELECT 1;`)}, "m/0001_b.sql": {Data: []byte(`SELECT 1;`)}},
			"migrations 0001_a.sql and 0001_b.sql share version 1"},
		{"failing", fstest.MapFS{"m/0001_a.sql": {Data: []byte(`CREATE TABLE a (v INTEGER); INSERT INTO nowhere VALUES (1);`)}},
			"migration 0001_a.sql:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := open(t)
			err := sqlmigrate.Apply(t.Context(), db, sqlmigrate.Engine{Name: "sqlite"}, c.files, "m")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Apply: got %v, want an error containing %q", err, c.want)
			}
			if got := applied(t, db); len(got) != 0 {
				t.Errorf("schema_migrations: got %v, want none", got)
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'a'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("table a: got %d, %v; want 0 (the failed migration rolled back)", n, err)
			}
		})
	}
}
