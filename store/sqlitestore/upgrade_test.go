package sqlitestore_test

import (
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/vigilhq/vigil/platform/sqlmigrate"
	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/store/sqlitestore"
)

// upTo returns the migrations of schemas.SQL whose name sorts before
// first: the store as an older release left it.
func upTo(t *testing.T, first string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(schemas.SQL, "sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() >= first {
			continue
		}
		b, err := fs.ReadFile(schemas.SQL, "sql/"+e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out["sql/"+e.Name()] = &fstest.MapFile{Data: b}
	}
	return out
}

// TestUpgradeRenamesRiskPermission: roles and API keys stored before the
// permission resource "risks" became "risk" grant the same after the
// upgrade.
func TestUpgradeRenamesRiskPermission(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlmigrate.Apply(t.Context(), db, sqlmigrate.Engine{Name: "sqlite"}, upTo(t, "0010_"), "sql"); err != nil {
		t.Fatalf("migrate to 0009: %v", err)
	}
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES ('o', 'org', 0)`,
		`INSERT INTO roles (id, org_id, name, description, permissions, built_in, created_at)
			VALUES ('r', 'o', 'auditor', '', '["models:read","risks:read","risks:write"]', 0, 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s := open(t, dir)
	var perms string
	if err := s.SQL().QueryRow(`SELECT permissions FROM roles WHERE id = 'r'`).Scan(&perms); err != nil {
		t.Fatal(err)
	}
	if want := `["models:read","risk:read","risk:write"]`; perms != want {
		t.Errorf("permissions after the upgrade: got %s, want %s", perms, want)
	}
	if strings.Contains(perms, "risks") {
		t.Errorf("permissions after the upgrade still name risks: %s", perms)
	}
}
