package backlog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/eventlog/kafka/kafkatest"
	"github.com/vigilhq/vigil/ingest/backlog"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestGateOnLogs runs a Gate over each engine's log: a group that commits
// while more than Max records are left closes it, Admit waits, and the
// gate opens once the group has committed its backlog down to Max.
func TestGateOnLogs(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		l, err := embeddedlog.Open(t.Context(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		testGate(t, l, l.Consumer("processors"), l, "processors")
	})
	t.Run("kafka", func(t *testing.T) {
		brokers := strings.Split(testenv.URL(t, testenv.Kafka), ",")
		p, consumer := kafkatest.Log(t, brokers, kafka.Options{PollMax: 10, Linger: -1})
		c := consumer("processors")
		t.Cleanup(func() { c.Close() })
		testGate(t, p, c, kafka.NewProgress(p.Client(), p.Prefix()), p.Prefix()+"processors")
	})
}

func testGate(t *testing.T, l eventlog.Log, c eventlog.Source, progress eventlog.Progress, group string) {
	const n = 60
	recs := make([]eventlog.Record, n)
	for i := range recs {
		recs[i] = eventlog.Record{Kind: eventlog.KindPrediction, Key: fmt.Sprintf("org/%d", i%5), Value: fmt.Appendf(nil, "v%02d", i)}
	}
	if err := l.Append(t.Context(), recs); err != nil {
		t.Fatalf("Append: %v", err)
	}
	g := &backlog.Gate{Progress: progress, Group: group, Max: 20, Every: 20 * time.Millisecond, Stalled: time.Hour}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	defer func() { cancel(); <-done }()

	consumed := 0
	consume := func() {
		t.Helper()
		pctx, pcancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer pcancel()
		msgs, err := c.Poll(pctx)
		if err != nil {
			t.Fatalf("Poll: %v", err)
		}
		if err := c.Commit(t.Context()); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		consumed += len(msgs)
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		eventually(t, fmt.Sprintf("%s (%d of %d consumed)", what, consumed, n), cond)
	}
	// Nothing committed yet: no progress seen, the gate stays open.
	wait("a first reading", func() bool { _, ok := g.Backlog(); return ok })
	if g.Closed() {
		t.Fatal("got a closed gate before the group committed anything, want it open")
	}
	if err := g.Admit(t.Context()); err != nil {
		t.Fatalf("Admit while open: %v", err)
	}
	consume()
	wait("the gate closing as the group commits with a backlog over Max", g.Closed)
	admitted := make(chan error, 1)
	go func() { admitted <- g.Admit(t.Context()) }()
	for n-consumed > 20 {
		consume()
	}
	wait("the gate opening at Max", func() bool { return !g.Closed() })
	if err := <-admitted; err != nil {
		t.Fatalf("Admit once open: got %v, want nil", err)
	}
}

// eventually waits up to 30 s for cond, failing t with what otherwise.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s", what)
		}
	}
}
