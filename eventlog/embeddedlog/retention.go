package embeddedlog

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Trim deletes the records every known group has committed, in
// transactions of at most Options.TrimChunk records queued with the
// appends, and returns how many it deleted. A group is known from its
// Consumer's first Poll until DeleteGroup; with no known group nothing is
// deleted. SQLite reuses the freed pages, so the file stops growing rather
// than shrinking. Errors wrap eventlog.ErrUnavailable and are retryable;
// records deleted before an error stay deleted.
func (l *Log) Trim(ctx context.Context) (int64, error) {
	var (
		known bool
		upTo  sql.NullInt64
	)
	err := l.db.QueryRowContext(ctx, `SELECT COUNT(*) > 0, MIN(committed) FROM group_offsets`).Scan(&known, &upTo)
	if err != nil {
		return 0, fmt.Errorf("embeddedlog: trim: %w", unavailable(err))
	}
	if !known || !upTo.Valid || upTo.Int64 <= 0 {
		return 0, nil
	}
	var total int64
	for {
		var n int64
		err := l.do(ctx, fnJob(func(ctx context.Context, c *sql.Conn) error {
			res, err := c.ExecContext(ctx, `DELETE FROM events WHERE seq IN
				(SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)`, upTo.Int64, l.opts.TrimChunk)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		}), "trim")
		if err != nil {
			return total, err
		}
		total += n
		if n < int64(l.opts.TrimChunk) {
			return total, nil
		}
	}
}

// DeleteGroup forgets group's committed offset, so that retention no
// longer waits for it: for a group that will not read again. Errors wrap
// eventlog.ErrUnavailable and are retryable.
func (l *Log) DeleteGroup(ctx context.Context, group string) error {
	return l.do(ctx, fnJob(func(ctx context.Context, c *sql.Conn) error {
		_, err := c.ExecContext(ctx, `DELETE FROM group_offsets WHERE consumer_group = ?`, group)
		return err
	}), "delete group")
}

// trimLoop runs Trim every Options.TrimInterval until Close.
func (l *Log) trimLoop() {
	defer close(l.trimDone)
	t := time.NewTicker(l.opts.TrimInterval)
	defer t.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-l.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		if n, err := l.Trim(ctx); err != nil {
			if ctx.Err() == nil {
				l.opts.Logger.Warn("embedded event log: retention failed", "err", err, "deleted", n)
			}
		} else if n > 0 {
			l.opts.Logger.Debug("embedded event log: retention", "deleted", n)
		}
	}
}
