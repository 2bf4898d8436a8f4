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

	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/sqlmigrate"
	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
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

// older returns a folder holding a store migrated up to (not including)
// the migration named first, and the store's database, open.
func older(t *testing.T, first string) (string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlmigrate.Apply(t.Context(), db, sqlmigrate.Engine{Name: "sqlite"}, upTo(t, first), "sql"); err != nil {
		t.Fatalf("migrate up to %s: %v", first, err)
	}
	return dir, db
}

// TestUpgradeRenamesRiskPermission: roles and API keys stored before the
// permission resource "risks" became "risk" grant the same after the
// upgrade.
func TestUpgradeRenamesRiskPermission(t *testing.T) {
	dir, db := older(t, "0010_")
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

// TestUpgradeGrantsBuiltInRoles: the built-in roles stored before a
// migration that grants them new permissions hold what a new
// organization's roles hold after the upgrade, and a custom role is left
// as it was.
func TestUpgradeGrantsBuiltInRoles(t *testing.T) {
	for _, tc := range []struct {
		first   string                 // the migration that grants
		granted func(perm string) bool // what it grants
	}{
		{"0012_", func(p string) bool { return strings.HasPrefix(p, "trust:") }},
		{"0016_", func(p string) bool { return p == "governance:review" }},
	} {
		t.Run(tc.first, func(t *testing.T) {
			dir, db := older(t, tc.first)
			if _, err := db.Exec(`INSERT INTO organizations (id, name, created_at) VALUES ('o', 'org', 0)`); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, r := range identity.BuiltInRoles() {
				before, _ := json.Marshal(slices.DeleteFunc(slices.Clone(r.Permissions), tc.granted))
				now, _ := json.Marshal(r.Permissions)
				want[r.Name] = string(now)
				if _, err := db.Exec(`INSERT INTO roles (id, org_id, name, description, permissions, built_in, created_at)
					VALUES (?, 'o', ?, '', ?, 1, 0)`, r.Name, r.Name, string(before)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec(`INSERT INTO roles (id, org_id, name, description, permissions, built_in, created_at)
				VALUES ('auditor', 'o', 'auditor', '', '["risk:read","governance:read"]', 0, 0)`); err != nil {
				t.Fatal(err)
			}
			want["auditor"] = `["risk:read","governance:read"]`
			db.Close()
			s := open(t, dir)
			for id, w := range want {
				var perms string
				if err := s.SQL().QueryRow(`SELECT permissions FROM roles WHERE id = ?`, id).Scan(&perms); err != nil {
					t.Fatal(err)
				}
				if perms != w {
					t.Errorf("role %s after the upgrade: got %s, want %s", id, perms, w)
				}
			}
		})
	}
}

// TestUpgradeTalliesRisks: the register's totals, read from the tallies
// from 0013 on, count the entries stored before.
func TestUpgradeTalliesRisks(t *testing.T) {
	dir, db := older(t, "0013_")
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES ('o', 'org', 0)`,
		`INSERT INTO risk_entries (id, org_id, title, description, category, likelihood, impact, risk_score, severity, severity_rank,
			status, is_open, mitigation_plan, created_at, updated_at) VALUES
			('a', 'o', 'a', '', 'drift', 4, 3, 12, 'high', 3, 'identified', 1, '', 1, 1),
			('b', 'o', 'b', '', 'bias', 4, 3, 12, 'high', 3, 'identified', 1, '', 2, 2),
			('c', 'o', 'c', '', 'bias', 1, 1, 1, 'low', 1, 'closed', 0, '', 3, 3)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s := open(t, dir)
	for _, tc := range []struct {
		f    risk.Filter
		want int64
	}{
		{risk.Filter{}, 3},
		{risk.Filter{Category: "bias"}, 2},
		{risk.Filter{Status: risk.StatusIdentified, Severity: "high"}, 2},
		{risk.Filter{Status: risk.StatusClosed, Category: "drift"}, 0},
	} {
		if _, total, err := s.RiskEntries(t.Context(), "o", tc.f); err != nil || total != tc.want {
			t.Errorf("filter %+v: got total %d (error %v), want %d", tc.f, total, err, tc.want)
		}
	}
}
