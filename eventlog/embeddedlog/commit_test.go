package embeddedlog

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/vigilhq/vigil/eventlog"
)

// TestGroupCommitOwnErrors shows that in one group commit each caller gets
// the outcome of its own records: a job whose statement fails gets its
// error (not retryable), and the jobs around it are written.
func TestGroupCommitOwnErrors(t *testing.T) {
	l, err := OpenOptions(t.Context(), t.TempDir(), Options{TrimInterval: -1})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()
	rec := func(v string) []eventlog.Record {
		return []eventlog.Record{{Kind: eventlog.KindPrediction, Key: "k", Value: []byte(v)}}
	}
	newJob := func(j *job) *job {
		j.ctx, j.done = t.Context(), make(chan error, 1)
		return j
	}
	jobs := []*job{
		newJob(&job{recs: rec("first")}),
		newJob(&job{fn: func(ctx context.Context, c *sql.Conn) error {
			// NOT NULL constraint: this job's own failure.
			_, err := c.ExecContext(ctx, `INSERT INTO group_offsets (consumer_group, committed, updated_at) VALUES ('g', NULL, 0)`)
			return err
		}}),
		newJob(&job{recs: rec("second")}),
	}
	// Queue the three at once, so that one transaction takes them.
	l.mu.Lock()
	l.queue = append(l.queue, jobs...)
	l.mu.Unlock()
	l.kick <- struct{}{}

	f := func(name string, j *job, wantErr bool) {
		t.Helper()
		err := <-j.done
		switch {
		case wantErr && (err == nil || errors.Is(err, eventlog.ErrUnavailable)):
			t.Errorf("%s: got %v, want its own, non-retryable error", name, err)
		case !wantErr && err != nil:
			t.Errorf("%s: got %v, want nil", name, err)
		}
	}
	f("first append", jobs[0], false)
	f("failing statement", jobs[1], true)
	f("second append", jobs[2], false)

	c := l.Consumer("reader")
	msgs, err := c.Poll(t.Context())
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	if len(msgs) != 2 || string(msgs[0].Value) != "first" || string(msgs[1].Value) != "second" {
		t.Fatalf("Poll: got %d messages %v, want first and second", len(msgs), msgs)
	}
}
