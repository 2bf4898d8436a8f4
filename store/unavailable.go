package store

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Unreachable reports whether err says the engine could not be reached or
// the connection to it broke: a refused, reset or timed-out connection, a
// connection that ended mid-answer, or one the driver found bad. These are
// the failures every engine shares; each store adds the answers of its own
// server that mean "retry later" (PostgreSQL's SQLSTATE class 08,
// ClickHouse's NETWORK_ERROR).
func Unreachable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}

// Unavailable marks err as ErrUnavailable, keeping it in the chain so that
// callers may still inspect the engine's error. A nil err stays nil, and
// an err marked already is returned as is.
func Unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}
