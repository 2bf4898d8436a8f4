package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// sweepEvery is how many Incr calls pass between two sweeps of the rows
// whose counter and block have both run out.
const sweepEvery = 256

// Limits is a ratelimit.Store in the transactional store's ratelimit
// table, for the state that must outlive a restart (login back-offs) when
// no Redis is configured. Each call is one statement, atomic on its own, so
// replicas on one PostgreSQL share keys. Times come from the process clock.
// Errors wrap ratelimit.ErrUnavailable.
type Limits struct {
	db    *DB
	calls atomic.Int64
}

var _ ratelimit.Store = (*Limits)(nil)

// Limits returns the ratelimit.Store kept in this store.
func (s *DB) Limits() *Limits { return &Limits{db: s} }

// Incr implements ratelimit.Store.
func (l *Limits) Incr(ctx context.Context, key string, ttl time.Duration) (int64, error) {
	now := micros(time.Now())
	var until int64
	if ttl > 0 {
		until = now + max(1, ttl.Microseconds())
	}
	// A counter starts again when it has expired or was never counted
	// (a row that only holds a block).
	const fresh = `(ratelimit.count = 0 OR (ratelimit.count_until <> 0 AND ratelimit.count_until <= ?))`
	var n int64
	err := l.db.db.QueryRowContext(ctx, l.db.q(`INSERT INTO ratelimit (key, count, count_until, blocked_until) VALUES (?, 1, ?, 0)
		ON CONFLICT (key) DO UPDATE SET
			count = CASE WHEN `+fresh+` THEN 1 ELSE ratelimit.count + 1 END,
			count_until = CASE WHEN `+fresh+` THEN excluded.count_until ELSE ratelimit.count_until END
		RETURNING count`), rowKey(key), until, now, now).Scan(&n)
	if err != nil {
		return 0, l.wrap("incr", key, err)
	}
	if l.calls.Add(1)%sweepEvery == 0 {
		if _, err := l.db.exec(ctx, l.db.db, `DELETE FROM ratelimit WHERE blocked_until <= ?
			AND (count = 0 OR (count_until <> 0 AND count_until <= ?))`, now, now); err != nil {
			return 0, l.wrap("sweep", key, err)
		}
	}
	return n, nil
}

// Get implements ratelimit.Store.
func (l *Limits) Get(ctx context.Context, key string) (int64, error) {
	var n int64
	err := l.db.db.QueryRowContext(ctx, l.db.q(`SELECT count FROM ratelimit WHERE key = ?
		AND (count_until = 0 OR count_until > ?)`), rowKey(key), micros(time.Now())).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, l.wrap("get", key, err)
	}
	return n, nil
}

// Block implements ratelimit.Store.
func (l *Limits) Block(ctx context.Context, key string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	until := micros(time.Now()) + max(1, d.Microseconds())
	_, err := l.db.exec(ctx, l.db.db, `INSERT INTO ratelimit (key, count, count_until, blocked_until) VALUES (?, 0, 0, ?)
		ON CONFLICT (key) DO UPDATE SET blocked_until = CASE WHEN ratelimit.blocked_until > excluded.blocked_until
			THEN ratelimit.blocked_until ELSE excluded.blocked_until END`, rowKey(key), until)
	return l.wrap("block", key, err)
}

// Blocked implements ratelimit.Store. It has microsecond resolution.
func (l *Limits) Blocked(ctx context.Context, key string) (time.Duration, error) {
	var until int64
	err := l.db.db.QueryRowContext(ctx, l.db.q(`SELECT blocked_until FROM ratelimit WHERE key = ?`), rowKey(key)).Scan(&until)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, l.wrap("blocked", key, err)
	}
	return max(0, time.Duration(until-micros(time.Now()))*time.Microsecond), nil
}

// Delete implements ratelimit.Store.
func (l *Limits) Delete(ctx context.Context, keys ...string) error {
	for _, k := range keys {
		if _, err := l.db.exec(ctx, l.db.db, `DELETE FROM ratelimit WHERE key = ?`, rowKey(k)); err != nil {
			return l.wrap("delete", k, err)
		}
	}
	return nil
}

// rowKey is key as the table keeps it: quoted in ASCII, so that any bytes
// (NUL, invalid UTF-8) fit a TEXT column on every engine, one to one.
func rowKey(key string) string { return strconv.QuoteToASCII(key) }

// wrap marks err, from operation op on key, as ratelimit.ErrUnavailable.
func (l *Limits) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sqlstore: ratelimit %s %q: %w: %w", op, key, ratelimit.ErrUnavailable, err)
}
