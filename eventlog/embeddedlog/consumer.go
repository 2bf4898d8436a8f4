package embeddedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// Consumer reads the log for one consumer group; it implements
// eventlog.Source. The log has a single partition: messages carry
// Partition 0 and their sequence number as Offset.
//
// A group should have one Consumer at a time: two Consumers of one group
// each read every record after the group's committed offset.
type Consumer struct {
	l     *Log
	group string

	closeOnce sync.Once
	quit      chan struct{} // closed by Close

	mu        sync.Mutex // serialises Poll and Commit
	started   bool       // the committed offset was read
	pos       int64      // offset of the last message returned by Poll
	committed int64      // offset last committed
}

var _ eventlog.Source = (*Consumer)(nil)

// Consumer returns a reader for group, which starts after the group's
// committed offset, or at the beginning of the retained log for a new
// group. From its first Poll the group holds back retention: Trim deletes
// only what it has committed.
func (l *Log) Consumer(group string) *Consumer {
	return &Consumer{l: l, group: group, quit: make(chan struct{})}
}

// Poll implements eventlog.Source: it returns up to Options.PollMax
// messages after the last one it returned, in log order, waiting until one
// exists or ctx ends (the error then wraps ctx.Err()). Database errors and
// a closed Log wrap eventlog.ErrUnavailable and are retryable.
func (c *Consumer) Poll(ctx context.Context) ([]eventlog.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed() {
		return nil, fmt.Errorf("embeddedlog: poll: %w", errConsumerClosed)
	}
	if !c.started {
		if err := c.start(ctx); err != nil {
			return nil, err
		}
	}
	var timer *time.Timer
	for {
		// Take the wake-up channel before reading, so that an Append
		// committed after the read still wakes this Poll.
		wake := c.l.wakeup()
		if c.l.isClosed() {
			return nil, fmt.Errorf("embeddedlog: poll: %w: %w", eventlog.ErrUnavailable, errClosed)
		}
		msgs, err := c.read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("embeddedlog: poll: %w", ctx.Err())
			}
			return nil, fmt.Errorf("embeddedlog: poll: %w", unavailable(err))
		}
		if len(msgs) > 0 {
			c.pos = msgs[len(msgs)-1].Offset
			return msgs, nil
		}
		if timer == nil {
			timer = time.NewTimer(c.l.opts.PollInterval)
			defer timer.Stop()
		} else {
			timer.Reset(c.l.opts.PollInterval)
		}
		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
			return nil, fmt.Errorf("embeddedlog: poll: %w", ctx.Err())
		case <-c.quit:
			return nil, fmt.Errorf("embeddedlog: poll: %w", errConsumerClosed)
		}
	}
}

// start reads the group's committed offset and registers the group, so
// that retention keeps what it has not committed.
func (c *Consumer) start(ctx context.Context) error {
	err := c.l.do(ctx, &job{fn: func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, `INSERT INTO group_offsets (consumer_group, committed, updated_at)
			VALUES (?, 0, ?) ON CONFLICT (consumer_group) DO NOTHING`, c.group, time.Now().UnixMilli())
		return err
	}}, "poll: register group")
	if err != nil {
		return err
	}
	var off int64
	err = c.l.db.QueryRowContext(ctx, `SELECT committed FROM group_offsets WHERE consumer_group = ?`, c.group).Scan(&off)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("embeddedlog: poll: read committed offset: %w", unavailable(err))
	}
	c.pos, c.committed, c.started = off, off, true
	return nil
}

func (c *Consumer) read(ctx context.Context) ([]eventlog.Message, error) {
	rows, err := c.l.db.QueryContext(ctx,
		`SELECT seq, kind, key, value FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, c.pos, c.l.opts.PollMax)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []eventlog.Message
	for rows.Next() {
		var m eventlog.Message
		if err := rows.Scan(&m.Offset, &m.Kind, &m.Key, &m.Value); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// Commit implements eventlog.Source: it durably stores the offset of the
// last message Poll returned as the group's committed offset (never moving
// it back). Errors wrap eventlog.ErrUnavailable and are retryable.
func (c *Consumer) Commit(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed() {
		return fmt.Errorf("embeddedlog: commit: %w", errConsumerClosed)
	}
	if !c.started || c.pos <= c.committed {
		return nil
	}
	pos := c.pos
	err := c.l.do(ctx, &job{fn: func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, `INSERT INTO group_offsets (consumer_group, committed, updated_at)
			VALUES (?, ?, ?) ON CONFLICT (consumer_group) DO UPDATE
			SET committed = excluded.committed, updated_at = excluded.updated_at
			WHERE excluded.committed > group_offsets.committed`, c.group, pos, time.Now().UnixMilli())
		return err
	}}, "commit")
	if err != nil {
		return err
	}
	c.committed = pos
	return nil
}

// Close implements eventlog.Source: the consumer stops, and a Poll
// waiting in another goroutine returns; messages returned by Poll but not
// committed are read again by the group's next Consumer.
func (c *Consumer) Close() error {
	c.closeOnce.Do(func() { close(c.quit) })
	return nil
}

func (c *Consumer) isClosed() bool {
	select {
	case <-c.quit:
		return true
	default:
		return false
	}
}

// errConsumerClosed reports a call on a closed Consumer: a caller's bug,
// not retryable.
var errConsumerClosed = errors.New("consumer closed")
