package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// SQLite moves the pages a commit appended to the write-ahead log into the
// database file when the log passes wal_autocheckpoint pages, inside the
// commit that crossed it: one batch in every few paid for copying and
// syncing the others. The store checkpoints in the background instead, a
// moment after each write, and keeps the automatic checkpoint only as a
// bound on the log should the background fall behind.
const (
	// autoCheckpointPages is wal_autocheckpoint: 16384 pages of 4 KiB.
	autoCheckpointPages = 16384
	// checkpointPause is the least time between background checkpoints.
	checkpointPause = 100 * time.Millisecond
)

// checkpointer runs PASSIVE checkpoints (which wait for no reader or
// writer) after writes, one at a time, at most one per checkpointPause.
type checkpointer struct {
	wrote   chan struct{}      // a write committed; buffered, one pending
	cancel  context.CancelFunc // ends the loop and a checkpoint in progress
	stopped chan struct{}      // closed when the loop has returned
}

func startCheckpointer(db *sql.DB) *checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{wrote: make(chan struct{}, 1), cancel: cancel, stopped: make(chan struct{})}
	go c.loop(ctx, db)
	return c
}

// written tells the checkpointer a write committed; it never waits.
func (c *checkpointer) written() {
	select {
	case c.wrote <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop(ctx context.Context, db *sql.DB) {
	defer close(c.stopped)
	for {
		select {
		case <-c.wrote:
		case <-ctx.Done():
			return
		}
		// A failed or partial checkpoint (a reader holding old pages) is
		// completed by a later one, or by the automatic checkpoint.
		_, _ = db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		select {
		case <-time.After(checkpointPause):
		case <-ctx.Done():
			return
		}
	}
}

// stop ends the loop and waits for it; later calls return at once.
func (c *checkpointer) stop() {
	c.cancel()
	<-c.stopped
}
