// Package logtest is the contract suite of the event log: every engine of
// eventlog.Log, with its eventlog.Source, must pass Run.
//
// It imports the eventlog contract alone; each engine's tests call Run.
package logtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// NewFunc opens an empty log for one test and returns it with a
// constructor of its consumers: each call returns a new consumer of group.
// Group names are the suite's; an engine whose groups outlive the test
// (Kafka) makes them unique. Cleanup is the function's, through t.Cleanup.
type NewFunc func(t *testing.T) (eventlog.Log, func(group string) eventlog.Source)

// Run runs the contract suite against the engine newLog opens.
func Run(t *testing.T, newLog NewFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source)
	}{
		{"RoundTrip", testRoundTrip},
		{"CommitResumes", testCommitResumes},
		{"UncommittedRedelivered", testUncommittedRedelivered},
		{"TwoGroups", testTwoGroups},
		{"ConcurrentAppends", testConcurrentAppends},
		{"LargeBatch", testLargeBatch},
		{"PollCancel", testPollCancel},
		{"EmptyAppend", testEmptyAppend},
		{"OldRecords", testOldRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log, consumer := newLog(t)
			tc.fn(t, log, consumer)
		})
	}
}

// Timeout bounds how long the suite waits for records to arrive.
var Timeout = 60 * time.Second

// quiet is how long a consumer must stay silent to show that nothing more
// is delivered.
const quiet = 2 * time.Second

// records returns n records spread over every kind and keys keys; batch
// tells them apart from other calls' records. Values hold binary bytes, to
// show they travel intact.
func records(batch string, n, keys int) []eventlog.Record {
	recs := make([]eventlog.Record, n)
	for i := range recs {
		kind := eventlog.Kinds[i%len(eventlog.Kinds)]
		key := fmt.Sprintf("org-1/model-%d", i%keys)
		recs[i] = eventlog.Record{
			Kind:  kind,
			Key:   key,
			Value: fmt.Appendf([]byte{0, 0xff, '\n'}, "%s|%s|%s|%06d", batch, kind, key, i),
		}
	}
	return recs
}

func ctxFor(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

func appendAll(t *testing.T, log eventlog.Log, recs []eventlog.Record) {
	t.Helper()
	if err := log.Append(ctxFor(t), recs); err != nil {
		t.Fatalf("Append(%d records): %v", len(recs), err)
	}
}

// open returns a consumer of group, closed at the end of the test.
func open(t *testing.T, consumer func(string) eventlog.Source, group string) eventlog.Source {
	t.Helper()
	src := consumer(group)
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Errorf("Close(%s): %v", group, err)
		}
	})
	return src
}

// poll reads from src until it has returned n messages in all, failing the
// test after Timeout.
func poll(t *testing.T, src eventlog.Source, n int) []eventlog.Message {
	t.Helper()
	ctx := ctxFor(t)
	var got []eventlog.Message
	for len(got) < n {
		msgs, err := src.Poll(ctx)
		if err != nil {
			t.Fatalf("Poll after %d of %d messages: %v", len(got), n, err)
		}
		got = append(got, msgs...)
	}
	return got
}

// silent fails the test when src returns messages within quiet.
func silent(t *testing.T, src eventlog.Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), quiet)
	defer cancel()
	msgs, err := src.Poll(ctx)
	if len(msgs) > 0 {
		t.Fatalf("Poll: got %d more messages (first %q), want none", len(msgs), msgs[0].Value)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Poll of an exhausted log: got error %v, want one wrapping context.DeadlineExceeded", err)
	}
}

func commit(t *testing.T, src eventlog.Source) {
	t.Helper()
	if err := src.Commit(ctxFor(t)); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func closeSource(t *testing.T, src eventlog.Source) {
	t.Helper()
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// sameSet checks that got holds exactly the records of want, in any
// order, each once, with kind, key and value intact.
func sameSet(t *testing.T, got []eventlog.Message, want []eventlog.Record) {
	t.Helper()
	wantSet := make(map[string]eventlog.Record, len(want))
	for _, r := range want {
		wantSet[string(r.Value)] = r
	}
	seen := make(map[string]bool, len(got))
	for _, m := range got {
		r, ok := wantSet[string(m.Value)]
		switch {
		case !ok:
			t.Fatalf("got unexpected message %q (kind %q, key %q)", m.Value, m.Kind, m.Key)
		case seen[string(m.Value)]:
			t.Fatalf("got message %q twice, want it once", m.Value)
		case m.Kind != r.Kind || m.Key != r.Key:
			t.Fatalf("message %q: got kind %q key %q, want kind %q key %q", m.Value, m.Kind, m.Key, r.Kind, r.Key)
		}
		seen[string(m.Value)] = true
	}
	if len(seen) != len(wantSet) {
		t.Fatalf("got %d distinct messages, want %d", len(seen), len(wantSet))
	}
}

// inOrder checks that got keeps the order of want among the records of
// each kind and key, and that offsets grow within each partition.
func inOrder(t *testing.T, got []eventlog.Message, want []eventlog.Record) {
	t.Helper()
	type stream struct{ kind, key string }
	wantSeq := make(map[stream][]string)
	for _, r := range want {
		s := stream{r.Kind, r.Key}
		wantSeq[s] = append(wantSeq[s], string(r.Value))
	}
	gotSeq := make(map[stream][]string)
	type part struct {
		kind string
		p    int32
	}
	last := make(map[part]int64)
	for _, m := range got {
		s := stream{m.Kind, m.Key}
		gotSeq[s] = append(gotSeq[s], string(m.Value))
		p := part{m.Kind, m.Partition}
		if prev, ok := last[p]; ok && m.Offset <= prev {
			t.Fatalf("kind %s partition %d: got offset %d after %d, want growing offsets", m.Kind, m.Partition, m.Offset, prev)
		}
		last[p] = m.Offset
	}
	for s, w := range wantSeq {
		if g := gotSeq[s]; !slices.Equal(g, w) {
			t.Fatalf("kind %s key %s: got %d messages in order %q, want %q", s.kind, s.key, len(g), g, w)
		}
	}
}

func testRoundTrip(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	want := records("rt", 300, 4)
	for i := 0; i < len(want); i += 50 {
		appendAll(t, log, want[i:i+50])
	}
	src := open(t, consumer, "round-trip")
	got := poll(t, src, len(want))
	sameSet(t, got, want)
	inOrder(t, got, want)
	silent(t, src)
}

func testCommitResumes(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	first := records("first", 30, 3)
	appendAll(t, log, first)
	a := consumer("resume")
	sameSet(t, poll(t, a, len(first)), first)
	commit(t, a)
	closeSource(t, a)

	second := records("second", 15, 3)
	appendAll(t, log, second)
	b := open(t, consumer, "resume")
	got := poll(t, b, len(second))
	sameSet(t, got, second)
	inOrder(t, got, second)
	silent(t, b)
}

func testUncommittedRedelivered(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	committed := records("committed", 12, 2)
	appendAll(t, log, committed)
	a := consumer("redeliver")
	sameSet(t, poll(t, a, len(committed)), committed)
	commit(t, a)

	pending := records("pending", 9, 2)
	appendAll(t, log, pending)
	sameSet(t, poll(t, a, len(pending)), pending)
	closeSource(t, a) // without Commit

	b := open(t, consumer, "redeliver")
	got := poll(t, b, len(pending))
	sameSet(t, got, pending)
	inOrder(t, got, pending)
	silent(t, b)
}

func testTwoGroups(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	want := records("groups", 60, 3)
	appendAll(t, log, want)
	for _, g := range []string{"group-a", "group-b"} {
		src := open(t, consumer, g)
		got := poll(t, src, len(want))
		sameSet(t, got, want)
		inOrder(t, got, want)
		commit(t, src)
	}
}

func testConcurrentAppends(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	const writers, perWriter = 16, 120
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		want []eventlog.Record
		errs = make(chan error, writers)
	)
	ctx := ctxFor(t)
	for w := range writers {
		wg.Go(func() {
			recs := records(fmt.Sprintf("w%02d", w), perWriter, 5)
			// Half the writers append one record a call, half in batches.
			step := 1
			if w%2 == 1 {
				step = 20
			}
			for i := 0; i < len(recs); i += step {
				if err := log.Append(ctx, recs[i:i+step]); err != nil {
					errs <- fmt.Errorf("writer %d: Append: %w", w, err)
					return
				}
			}
			mu.Lock()
			want = append(want, recs...)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(want) != writers*perWriter {
		t.Fatalf("appended %d records, want %d", len(want), writers*perWriter)
	}
	src := open(t, consumer, "concurrent")
	got := poll(t, src, len(want))
	sameSet(t, got, want)
}

func testLargeBatch(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	want := records("large", 10000, 16)
	appendAll(t, log, want)
	src := open(t, consumer, "large")
	got := poll(t, src, len(want))
	sameSet(t, got, want)
	inOrder(t, got, want)
}

func testPollCancel(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	src := open(t, consumer, "cancel")

	// A deadline ends a Poll of an empty log.
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	start := time.Now()
	msgs, err := src.Poll(ctx)
	cancel()
	if len(msgs) > 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Poll with a deadline: got %d messages and error %v, want none and context.DeadlineExceeded", len(msgs), err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Poll with a 500ms deadline returned after %v", d)
	}

	// Cancelling ends a waiting Poll.
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	msgs, err = src.Poll(ctx)
	if len(msgs) > 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Poll: got %d messages and error %v, want none and context.Canceled", len(msgs), err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Poll cancelled after 300ms returned after %v", d)
	}

	// The consumer still works afterwards.
	want := records("after-cancel", 6, 2)
	appendAll(t, log, want)
	sameSet(t, poll(t, src, len(want)), want)
}

func testEmptyAppend(t *testing.T, log eventlog.Log, _ func(string) eventlog.Source) {
	if err := log.Append(ctxFor(t), nil); err != nil {
		t.Fatalf("Append(nil): got %v, want nil", err)
	}
}
