package sqlitestore_test

import (
	"database/sql"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/vigilhq/vigil/identity"
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

// TestUpgradeGrantsEditorsReview: a built-in editor role stored before
// review boards holds what a new organization's editor holds after the
// upgrade (governance:review), and a custom role is left as it was.
func TestUpgradeGrantsEditorsReview(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlmigrate.Apply(t.Context(), db, sqlmigrate.Engine{Name: "sqlite"}, upTo(t, "0016_"), "sql"); err != nil {
		t.Fatalf("migrate to 0015: %v", err)
	}
	var editor []string
	for _, r := range identity.BuiltInRoles() {
		if r.Name == identity.RoleEditor {
			editor = slices.DeleteFunc(slices.Clone(r.Permissions), func(p string) bool { return p == "governance:review" })
		}
	}
	before, _ := json.Marshal(editor)
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES ('o', 'org', 0)`,
		`INSERT INTO roles (id, org_id, name, description, permissions, built_in, created_at) VALUES ('e', 'o', 'editor', '', '` +
			string(before) + `', 1, 0)`,
		`INSERT INTO roles (id, org_id, name, description, permissions, built_in, created_at)
			VALUES ('c', 'o', 'writer', '', '["governance:read","governance:write"]', 0, 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s := open(t, dir)
	for id, want := range map[string][]string{"c": {"governance:read", "governance:write"}} {
		var perms string
		if err := s.SQL().QueryRow(`SELECT permissions FROM roles WHERE id = ?`, id).Scan(&perms); err != nil {
			t.Fatal(err)
		}
		if w, _ := json.Marshal(want); perms != string(w) {
			t.Errorf("custom role after the upgrade: got %s, want %s", perms, w)
		}
	}
	var perms string
	if err := s.SQL().QueryRow(`SELECT permissions FROM roles WHERE id = 'e'`).Scan(&perms); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal([]byte(perms), &got); err != nil {
		t.Fatal(err)
	}
	for _, r := range identity.BuiltInRoles() {
		if r.Name == identity.RoleEditor && !slices.Equal(got, r.Permissions) {
			t.Errorf("editor after the upgrade: got %v, want a new organization's %v", got, r.Permissions)
		}
	}
}
