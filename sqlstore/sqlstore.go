// Package sqlstore is Vigil's transactional store over database/sql: one
// implementation of the domains' stores (identity, registry, drift, bias,
// governance/risk, governance/trust, governance/review) for every SQL engine.
// What differs between engines (placeholders, row locks, error codes, the
// migration lock) is a Dialect that the engine's package supplies, so the
// dialect stays inside sqlstore/sqlitestore and sqlstore/postgres.
//
// Writes are durable when they return nil (the engine committed them) and
// errors wrap store.ErrNotFound, store.ErrConflict or store.ErrUnavailable,
// which tells the caller whether to retry.
//
// It imports the store errors and, for their record types, the packages
// whose stores it implements (identity, registry, drift, bias,
// governance/risk, governance/trust, governance/review, integrations/workflow, integrations/codehost,
// platform/ratelimit); it must not import the event log, the analytical
// store, the processors, the ingest endpoints or the query API.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vigilhq/vigil/store"
)

// Dialect is what an engine tells the shared SQL code about itself.
type Dialect struct {
	// Name is the engine's name, e.g. "sqlite"; migration files named
	// NNNN_x.Name.sql apply to it alone.
	Name string
	// Numbered placeholders ($1, $2) instead of ?.
	Numbered bool
	// ForUpdate is appended to a SELECT that reads a row about to be
	// updated in the same transaction ("" where transactions already
	// serialise writers).
	ForUpdate string
	// IsConflict reports a unique-key violation.
	IsConflict func(error) bool
	// IsUnavailable reports a connection failure or an engine restart.
	IsUnavailable func(error) bool
	// LockMigrations serialises migrations across processes on conn; nil
	// when a single process owns the database.
	LockMigrations func(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
}

// DB is the transactional store on one engine. It is safe for concurrent use.
type DB struct {
	db *sql.DB
	d  Dialect
}

// New returns the store over db speaking d. Call Migrate before use.
func New(db *sql.DB, d Dialect) *DB { return &DB{db: db, d: d} }

// Close closes the connection pool.
func (s *DB) Close() error { return s.db.Close() }

// Engine names the engine, e.g. "postgres".
func (s *DB) Engine() string { return s.d.Name }

// Ping checks that the engine answers.
func (s *DB) Ping(ctx context.Context) error { return s.wrap(s.db.PingContext(ctx)) }

// SQL returns the underlying pool, for tests and tools.
func (s *DB) SQL() *sql.DB { return s.db }

// Rebind rewrites the ? placeholders of query for the engine, for tests
// and tools that write SQL of their own.
func (s *DB) Rebind(query string) string { return s.q(query) }

// q rewrites ? placeholders for the dialect.
func (s *DB) q(query string) string {
	if !s.d.Numbered || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wrap classifies an engine error as one of the store package's.
func (s *DB) wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w", store.ErrNotFound)
	case s.d.IsConflict != nil && s.d.IsConflict(err):
		return fmt.Errorf("%w: %v", store.ErrConflict, err)
	case s.d.IsUnavailable != nil && s.d.IsUnavailable(err),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, sql.ErrConnDone):
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	return err
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// exec runs a statement and reports how many rows it touched.
func (s *DB) exec(ctx context.Context, qr querier, query string, args ...any) (int64, error) {
	res, err := qr.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return 0, s.wrap(err)
	}
	n, err := res.RowsAffected()
	return n, s.wrap(err)
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return s.wrap(tx.Commit())
}
