// Package store names the errors every store returns, transactional and
// analytical, so that callers can tell a missing record from a conflict
// from an outage without knowing the engine: an error wrapping
// ErrUnavailable says "retry later", and the API answers it with 503 and
// Retry-After. The SQL implementation is in sqlstore; the
// engines that open it are sqlstore/sqlitestore (the embedded default) and
// sqlstore/postgres.
//
// It imports nothing: every store, the API packages and the HTTP plumbing
// import it.
package store

import "errors"

var (
	// ErrNotFound: no such record in the caller's organization. A record of
	// another organization is reported exactly like a missing one.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique key is taken. Retrying will not help.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: the engine cannot be reached or is restarting. Nothing
	// was changed; retrying later may succeed. Unavailable marks an error
	// with it; Unreachable tells the network failures every engine shares.
	ErrUnavailable = errors.New("store unavailable")
)
