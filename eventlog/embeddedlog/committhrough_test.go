package embeddedlog_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog/embeddedlog"
)

// TestCommitThrough: committing through a batch leaves the batches polled
// after it to the group's next consumer, never moves the committed offset
// back, and does not wait for a Poll waiting in another goroutine.
func TestCommitThrough(t *testing.T) {
	l := open(t, t.TempDir(), embeddedlog.Options{Linger: -1})
	mustAppend(t, l, recs("a", 3))
	c := l.Consumer("g")
	a := pollN(t, c, 3)
	mustAppend(t, l, recs("b", 2))
	b := pollN(t, c, 2)

	ctx, cancel := context.WithCancel(t.Context())
	waiting := make(chan error, 1)
	go func() { _, err := c.Poll(ctx); waiting <- err }()
	time.Sleep(50 * time.Millisecond) // the Poll above is waiting for a record
	committed := make(chan error, 1)
	go func() { committed <- c.CommitThrough(t.Context(), a) }()
	select {
	case err := <-committed:
		if err != nil {
			t.Fatalf("CommitThrough: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CommitThrough waited for the Poll in another goroutine")
	}
	cancel()
	<-waiting
	if err := c.CommitThrough(t.Context(), a[:1]); err != nil {
		t.Fatalf("CommitThrough of an earlier batch: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	got := pollN(t, l.Consumer("g"), 2)
	if fmt.Sprint(values(got)) != fmt.Sprint(values(b)) {
		t.Fatalf("next consumer: got %q, want the batch polled after the commit, %q", values(got), values(b))
	}
}
