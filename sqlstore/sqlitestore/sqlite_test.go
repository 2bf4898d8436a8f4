package sqlitestore_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/ratelimittest"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
	"github.com/vigilhq/vigil/sqlstore/storetest"
)

// open opens the store in dir and closes it when t ends.
func open(t *testing.T, dir string) *sqlstore.DB {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("sqlitestore.Open(%s): got error %v, want nil", dir, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return open(t, t.TempDir()) })
}

// TestLimitsContract runs the ratelimit.Store contract, with the Limiter
// and Lockout on top, against the store's ratelimit table.
func TestLimitsContract(t *testing.T) {
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Store { return open(t, t.TempDir()).Limits() })
}

func TestOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	s := open(t, dir)
	if got := s.Engine(); got != "sqlite" {
		t.Errorf("Engine: got %q, want sqlite", got)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: got error %v, want nil", err)
	}
	if _, err := os.Stat(filepath.Join(dir, sqlitestore.FileName)); err != nil {
		t.Errorf("database file: got error %v, want it to exist", err)
	}
	storetest.CheckMigrations(t, s.SQL(), "sqlite")
}

// TestReopen: closing and opening the same folder keeps the data and does
// not apply the migrations again.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	now := time.Date(2024, 1, 2, 3, 4, 5, 678901000, time.UTC)
	org := identity.Organization{ID: "org-1", Name: "default", CreatedAt: now}
	admin := identity.User{ID: "user-1", OrgID: org.ID, Username: "root", Email: "root@localhost", Role: identity.RoleAdmin,
		Active: true, PasswordHash: "hash", CreatedAt: now, UpdatedAt: now}
	model := registry.Model{ID: "model-1", OrgID: org.ID, Name: "fraud", Version: "1", ModelType: "classification",
		Status: registry.StatusActive, Tags: []string{"prod"}, Metadata: map[string]any{"k": "v"}, CreatedAt: now, UpdatedAt: now}

	s1, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatalf("first Open: got error %v, want nil", err)
	}
	if created, err := s1.Bootstrap(ctx, org, nil, admin); err != nil || !created {
		t.Fatalf("Bootstrap: got %v, %v, want true, nil", created, err)
	}
	if _, err := s1.Secret(ctx, "jwt_secret", "first"); err != nil {
		t.Fatalf("Secret: got error %v, want nil", err)
	}
	if err := s1.CreateModel(ctx, model); err != nil {
		t.Fatalf("CreateModel: got error %v, want nil", err)
	}
	before := storetest.CheckMigrations(t, s1.SQL(), "sqlite")
	if err := s1.Close(); err != nil {
		t.Fatalf("Close: got error %v, want nil", err)
	}

	s2 := open(t, dir)
	after := storetest.CheckMigrations(t, s2.SQL(), "sqlite")
	if !reflect.DeepEqual(after, before) {
		t.Errorf("schema_migrations after reopening: got %+v, want %+v (not applied again)", after, before)
	}
	if created, err := s2.Bootstrap(ctx, identity.Organization{ID: "org-2", CreatedAt: now}, nil,
		identity.User{ID: "user-2", OrgID: "org-2", Username: "root2"}); err != nil || created {
		t.Errorf("Bootstrap after reopening: got %v, %v, want false, nil", created, err)
	}
	if v, err := s2.Secret(ctx, "jwt_secret", "second"); err != nil || v != "first" {
		t.Errorf("Secret after reopening: got %q, %v, want first, nil", v, err)
	}
	if u, err := s2.UserByUsername(ctx, "root"); err != nil || !reflect.DeepEqual(u, admin) {
		t.Errorf("UserByUsername after reopening: got %+v, %v, want %+v, nil", u, err, admin)
	}
	got, err := s2.Model(ctx, org.ID, model.ID)
	if err != nil || !reflect.DeepEqual(got, model) {
		t.Errorf("Model after reopening: got %+v, %v, want %+v, nil", got, err, model)
	}
	ms, err := s2.Models(ctx, org.ID, registry.Filter{Tags: []string{"prod"}, Limit: 10})
	if err != nil || len(ms) != 1 || ms[0].ID != model.ID {
		t.Errorf("Models(tags prod) after reopening: got %d models, %v, want [model-1], nil", len(ms), err)
	}
}

// TestLimitsSweep: rows whose counter and block have run out are deleted
// by a later Incr, so failed logins do not pile up in the table.
func TestLimitsSweep(t *testing.T) {
	s := open(t, t.TempDir())
	l := s.Limits()
	ctx := t.Context()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := l.Incr(ctx, k, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Block(ctx, "blocked", time.Hour); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	for range 256 {
		if _, err := l.Incr(ctx, "live", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	rows, err := s.SQL().QueryContext(ctx, `SELECT key FROM ratelimit ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if want := []string{`"blocked"`, `"live"`}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("rows after the sweep: got %q, want %q", keys, want)
	}
}
