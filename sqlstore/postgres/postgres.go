// Package postgres opens the transactional store on PostgreSQL through
// pgx/v5, for deployments with several replicas.
//
// It imports sqlstore, the store errors and the schemas; it must not import
// the code that uses the store.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the pgx driver with database/sql

	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/store"
)

// migrationLock is the advisory lock id that serialises migrations of
// replicas starting together.
const migrationLock = 0x76696769 // "vigi"

// Dialect is PostgreSQL's: $n placeholders, SELECT ... FOR UPDATE, SQLSTATE
// error classes, and an advisory lock around migrations.
var Dialect = sqlstore.Dialect{
	Name:          "postgres",
	Numbered:      true,
	ForUpdate:     " FOR UPDATE",
	IsConflict:    func(err error) bool { return sqlState(err) == "23505" },
	IsUnavailable: unavailable,
	LockMigrations: func(ctx context.Context, conn *sql.Conn) (func(), error) {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
			return nil, err
		}
		return func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, migrationLock)
		}, nil
	},
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// unavailable reports errors that mean the server is down, restarting or
// unreachable: connection failures and SQLSTATE classes 08 (connection),
// 57P01-57P03 (shutdown, cannot connect now) and 53300 (too many
// connections).
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	if state := sqlState(err); state != "" {
		// The server answered: only these states pass with time. A wrong
		// password (28P01) or a missing database (3D000) does not.
		return strings.HasPrefix(state, "08") || state == "57P01" || state == "57P02" || state == "57P03" || state == "53300"
	}
	return errors.As(err, &ce) || store.Unreachable(err) || pgconn.SafeToRetry(err)
}

// Open connects to url, checks the server answers and applies the
// migrations.
func Open(ctx context.Context, url string) (*sqlstore.DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := sqlstore.New(db, Dialect)
	if err := s.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := s.Migrate(ctx, schemas.SQL, "sql"); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate postgres: %w", err)
	}
	return s, nil
}
