package embeddedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	// kinds, when set, are the only kinds Poll returns (kindsSQL lists
	// them for the query); the others are stepped over unread.
	kinds    []string
	kindsSQL string

	closeOnce sync.Once
	quit      chan struct{} // closed by Close

	mu      sync.Mutex // serialises Poll and Commit
	started bool       // the committed offset was read
	pos     int64      // offset of the last message returned by Poll

	// cmu guards committed apart from mu, which a Poll holds while it
	// waits: CommitThrough runs beside a waiting Poll.
	cmu       sync.Mutex
	committed int64 // offset last committed

	// lingering, set by tests alone, is called each time a Poll that
	// has messages starts to wait for more (export_test.go).
	lingering func()
}

var (
	_ eventlog.Source          = (*Consumer)(nil)
	_ eventlog.PrefixCommitter = (*Consumer)(nil)
)

// Consumer returns a reader for group, which starts after the group's
// committed offset, or at the beginning of the retained log for a new
// group. From its first Poll the group holds back retention: Trim deletes
// only what it has committed. With kinds, Poll returns only records of
// those kinds (as a Kafka consumer of their topics would): the others are
// stepped over without their key and value being read.
func (l *Log) Consumer(group string, kinds ...string) *Consumer {
	c := &Consumer{l: l, group: group, quit: make(chan struct{}), kinds: kinds}
	if len(kinds) > 0 {
		c.kindsSQL = "kind IN (?" + strings.Repeat(", ?", len(kinds)-1) + ")"
	}
	return c
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
	file := true // whether to look in the file when the tail has nothing new
	for {
		// Take the wake-up channel before reading, so that an Append
		// committed after the read still wakes this Poll.
		wake := c.l.wakeup()
		if c.l.isClosed() {
			return nil, fmt.Errorf("embeddedlog: poll: %w: %w", eventlog.ErrUnavailable, errClosed)
		}
		msgs, last, err := c.read(ctx, c.l.opts.PollMax, file)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("embeddedlog: poll: %w", ctx.Err())
			}
			return nil, fmt.Errorf("embeddedlog: poll: %w", unavailable(err))
		}
		if last > c.pos {
			// Records of other kinds are passed too: a Commit may store
			// their offsets, the group never reads them.
			c.pos = last
			if len(msgs) > 0 {
				return c.gather(ctx, msgs), nil
			}
			continue
		}
		if timer == nil {
			timer = time.NewTimer(c.l.opts.PollInterval)
			defer timer.Stop()
		} else {
			timer.Reset(c.l.opts.PollInterval)
		}
		select {
		case <-wake:
			file = false // this process committed: the tail has it
		case <-timer.C:
			file = true // another process may have written the file
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
	err := c.l.do(ctx, fnJob(func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, `INSERT INTO group_offsets (consumer_group, committed, updated_at)
			VALUES (?, 0, ?) ON CONFLICT (consumer_group) DO NOTHING`, c.group, time.Now().UnixMilli())
		return err
	}), "poll: register group")
	if err != nil {
		return err
	}
	var off int64
	err = c.l.db.QueryRowContext(ctx, `SELECT committed FROM group_offsets WHERE consumer_group = ?`, c.group).Scan(&off)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("embeddedlog: poll: read committed offset: %w", unavailable(err))
	}
	c.cmu.Lock()
	c.committed = off
	c.cmu.Unlock()
	c.pos, c.started = off, true
	return nil
}

// gather reads more after msgs until the batch has Options.MinBatch
// messages (or PollMax), or Options.Linger has passed. The linger's end,
// ctx ending, Close and a failed read all return what is gathered: the
// messages are the Poll's, and a failure shows again at the next Poll.
func (c *Consumer) gather(ctx context.Context, msgs []eventlog.Message) []eventlog.Message {
	o := c.l.opts
	if o.Linger < 0 || len(msgs) >= o.MinBatch {
		return msgs
	}
	deadline := time.NewTimer(o.Linger)
	defer deadline.Stop()
	for len(msgs) < min(o.MinBatch, o.PollMax) {
		wake := c.l.wakeup()
		if c.l.isClosed() {
			return msgs
		}
		more, last, err := c.read(ctx, o.PollMax-len(msgs), false)
		if err != nil {
			return msgs
		}
		if last > c.pos {
			c.pos, msgs = last, append(msgs, more...)
			continue
		}
		if c.lingering != nil {
			c.lingering()
		}
		select {
		case <-wake:
		case <-deadline.C:
			return msgs
		case <-ctx.Done():
			return msgs
		case <-c.quit:
			return msgs
		}
	}
	return msgs
}

// read returns the messages after c.pos, up to max records, and the
// offset of the last record read, of any kind (c.pos when none): from the
// log's in-memory tail when it holds the record after c.pos, else from
// the file. Without file, a consumer that has read the tail's newest
// record reads nothing: this process committed nothing since (each
// commit is in the tail before its wake-up), and what another process
// writes waits for a read with file (the Poll's first, or one after
// PollInterval). Lingering and waking Polls then cost no file read.
func (c *Consumer) read(ctx context.Context, max int, file bool) ([]eventlog.Message, int64, error) {
	if msgs, last, ok := c.l.tail.read(c.pos, max, c.kinds); ok {
		return msgs, last, nil
	}
	if !file && c.l.tail.holdsThrough(c.pos) {
		return nil, c.pos, nil
	}
	q, args := `SELECT seq, kind, key, value FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, []any{c.pos, max}
	if c.kindsSQL != "" {
		q = `SELECT seq, kind, CASE WHEN ` + c.kindsSQL + ` THEN key END, CASE WHEN ` + c.kindsSQL + ` THEN value END
			FROM events WHERE seq > ? ORDER BY seq LIMIT ?`
		args = make([]any, 0, 2*len(c.kinds)+2)
		for range 2 {
			for _, k := range c.kinds {
				args = append(args, k)
			}
		}
		args = append(args, c.pos, max)
	}
	rows, err := c.l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, c.pos, err
	}
	defer rows.Close()
	var msgs []eventlog.Message
	last := c.pos
	for rows.Next() {
		var m eventlog.Message
		var key sql.NullString
		if err := rows.Scan(&m.Offset, &m.Kind, &key, &m.Value); err != nil {
			return nil, c.pos, err
		}
		last = m.Offset
		if key.Valid {
			m.Key = key.String
			msgs = append(msgs, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, c.pos, err
	}
	return msgs, last, nil
}

// Commit implements eventlog.Source: it durably stores the offset of the
// last message Poll returned as the group's committed offset (never moving
// it back). Errors wrap eventlog.ErrUnavailable and are retryable.
func (c *Consumer) Commit(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commit(ctx, c.pos) // 0 before the first Poll: nothing to commit
}

// CommitThrough implements eventlog.PrefixCommitter: it durably stores the
// offset of the last of msgs as the group's committed offset (never moving
// it back), leaving what Poll returned after them uncommitted. It does not
// wait for a Poll in another goroutine. Errors wrap
// eventlog.ErrUnavailable and are retryable.
func (c *Consumer) CommitThrough(ctx context.Context, msgs []eventlog.Message) error {
	var through int64
	for _, m := range msgs {
		through = max(through, m.Offset)
	}
	return c.commit(ctx, through)
}

// commit stores pos as the group's committed offset unless it is not
// beyond the one committed.
func (c *Consumer) commit(ctx context.Context, pos int64) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.isClosed() {
		return fmt.Errorf("embeddedlog: commit: %w", errConsumerClosed)
	}
	if pos <= c.committed {
		return nil
	}
	err := c.l.do(ctx, fnJob(func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, `INSERT INTO group_offsets (consumer_group, committed, updated_at)
			VALUES (?, ?, ?) ON CONFLICT (consumer_group) DO UPDATE
			SET committed = excluded.committed, updated_at = excluded.updated_at
			WHERE excluded.committed > group_offsets.committed`, c.group, pos, time.Now().UnixMilli())
		return err
	}), "commit")
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
