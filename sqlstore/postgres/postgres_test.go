package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/ratelimittest"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/storetest"
	"github.com/vigilhq/vigil/store"
)

// open opens the store at url and closes it when t ends.
func open(t *testing.T, url string) *sqlstore.DB {
	t.Helper()
	s, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatalf("postgres.Open: got error %v, want nil", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return open(t, testenv.PostgresSchema(t)) })
}

// TestLimitsContract runs the ratelimit.Store contract, with the Limiter
// and Lockout on top, against the store's ratelimit table.
func TestLimitsContract(t *testing.T) {
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Store { return open(t, testenv.PostgresSchema(t)).Limits() })
}

func TestOpen(t *testing.T) {
	u := testenv.PostgresSchema(t)
	s := open(t, u)
	if got := s.Engine(); got != "postgres" {
		t.Errorf("Engine: got %q, want postgres", got)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: got error %v, want nil", err)
	}
	// The tables are in the test's schema, not in public.
	var schema string
	if err := s.SQL().QueryRowContext(t.Context(),
		`SELECT table_schema FROM information_schema.tables WHERE table_name = 'models' AND table_schema = current_schema()`).Scan(&schema); err != nil {
		t.Fatalf("find the models table in the current schema: %v", err)
	}
	if !strings.HasPrefix(schema, "t_") {
		t.Errorf("schema of the models table: got %q, want t_…", schema)
	}
	before := storetest.CheckMigrations(t, s.SQL(), "postgres")

	// Opening again applies nothing.
	s2 := open(t, u)
	after := storetest.CheckMigrations(t, s2.SQL(), "postgres")
	if len(after) != len(before) {
		t.Fatalf("schema_migrations after a second Open: got %d rows, want %d", len(after), len(before))
	}
	for i := range after {
		if after[i] != before[i] {
			t.Errorf("schema_migrations after a second Open: got %+v, want %+v", after[i], before[i])
		}
	}
}

// TestOpenConcurrent: replicas starting together on a fresh schema all
// succeed, and the advisory lock makes them apply the migrations once.
func TestOpenConcurrent(t *testing.T) {
	for range 3 {
		u := testenv.PostgresSchema(t)
		const n = 2
		var wg sync.WaitGroup
		stores := make([]*sqlstore.DB, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				stores[i], errs[i] = postgres.Open(t.Context(), u)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("concurrent postgres.Open %d: got error %v, want nil", i, err)
			}
			t.Cleanup(func() { stores[i].Close() })
		}
		storetest.CheckMigrations(t, stores[0].SQL(), "postgres")
		for i, s := range stores {
			if v, err := s.Secret(t.Context(), "k", "v"); err != nil || v != "v" {
				t.Errorf("Secret on store %d: got %q, %v, want v, nil", i, v, err)
			}
		}
	}
}

// TestOpenUnreachable: a server that does not answer is store.ErrUnavailable.
// It needs no PostgreSQL: port 1 on loopback is closed.
func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, u := range []string{
		"postgres://vigil:vigil@127.0.0.1:1/vigil?sslmode=disable&connect_timeout=5",
		"host=127.0.0.1 port=1 user=vigil password=vigil dbname=vigil sslmode=disable connect_timeout=5",
	} {
		s, err := postgres.Open(ctx, u)
		if err == nil {
			s.Close()
			t.Errorf("postgres.Open(%s): got nil error, want one wrapping %v", u, store.ErrUnavailable)
			continue
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("postgres.Open(%s): got error %v, want one wrapping %v", u, err, store.ErrUnavailable)
		}
		t.Logf("postgres.Open(%s): %v", u, err)
	}
}

// TestOpenRefused: a server that answers but refuses the credentials or
// the database is not store.ErrUnavailable, which promises that "retrying
// later may succeed"; the classification (unavailable in postgres.go) lists
// connection failures, SQLSTATE 08xxx, 57P01-57P03 and 53300 only.
func TestOpenRefused(t *testing.T) {
	base := testenv.URL(t, testenv.Postgres)
	f := func(what string, change func(u *url.URL)) {
		t.Helper()
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			t.Skipf("%s is not a postgres:// URL", testenv.Postgres)
		}
		change(u)
		s, err := postgres.Open(t.Context(), u.String())
		if err == nil {
			s.Close()
			t.Fatalf("%s: postgres.Open: got nil error, want one", what)
		}
		if errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s: postgres.Open: got error %v, want one not wrapping %v", what, err, store.ErrUnavailable)
		}
	}
	f("unknown database", func(u *url.URL) { u.Path = "/vigil_no_such_database" })
	f("wrong password", func(u *url.URL) { u.User = url.UserPassword(u.User.Username(), "wrong-password") })
}
