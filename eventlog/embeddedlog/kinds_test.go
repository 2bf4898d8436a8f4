package embeddedlog_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
)

// TestConsumerKinds reads a log of predictions with a few governance
// events among them, with PollMax far below the predictions between two
// governance events, through a consumer of governance alone: it gets
// exactly those, in order, and a new consumer of the group resumes after
// the committed offset.
func TestConsumerKinds(t *testing.T) {
	l := open(t, t.TempDir(), embeddedlog.Options{PollMax: 7})
	var want []string
	for i := range 5 {
		mustAppend(t, l, recs(fmt.Sprint("p", i), 30))
		v := fmt.Sprint("g", i)
		want = append(want, v)
		mustAppend(t, l, []eventlog.Record{{Kind: eventlog.KindGovernance, Key: "org/x", Value: []byte(v)}})
	}
	mustAppend(t, l, recs("tail", 20))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := l.Consumer("gov", eventlog.KindGovernance)
	var got []string
	for len(got) < 3 {
		msgs, err := c.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Kind != eventlog.KindGovernance || m.Key != "org/x" {
				t.Fatalf("got kind %q key %q, want governance org/x", m.Kind, m.Key)
			}
			got = append(got, string(m.Value))
		}
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = l.Consumer("gov", eventlog.KindGovernance)
	defer c.Close()
	for len(got) < len(want) {
		msgs, err := c.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			got = append(got, string(m.Value))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	short, cancelShort := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancelShort()
	if msgs, err := c.Poll(short); len(msgs) > 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Poll past the last governance event: got %d messages, %v; want none, the deadline", len(msgs), err)
	}
}
