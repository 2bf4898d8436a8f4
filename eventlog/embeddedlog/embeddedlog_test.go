package embeddedlog_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/eventlog/logtest"
)

// TestContract runs the contract suite with the default in-memory tail,
// a tail of three records (consumers move between the file and the tail)
// and none (every Poll reads the file).
func TestContract(t *testing.T) {
	for _, c := range []struct {
		name string
		opts embeddedlog.Options
	}{
		{"tail", embeddedlog.Options{}},
		{"small tail", embeddedlog.Options{TailRecords: 3, TailBytes: 1 << 20}},
		{"no tail", embeddedlog.Options{TailRecords: -1}},
		{"no linger", embeddedlog.Options{Linger: -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			logtest.Run(t, func(t *testing.T) (eventlog.Log, func(string) eventlog.Source) {
				l := open(t, t.TempDir(), c.opts)
				return l, func(g string) eventlog.Source { return l.Consumer(g) }
			})
		})
	}
}

// TestPollGathers: a Poll short of MinBatch keeps reading what is appended
// while it lingers, returns what it has when the linger ends or its
// context does, and without a linger returns its first read.
func TestPollGathers(t *testing.T) {
	// poll appends first records, then Polls with opts; while the Poll
	// lingers, its first wait appends late records and then calls then.
	// It returns what the Poll returned and how often it lingered.
	poll := func(ctx context.Context, opts embeddedlog.Options, first, late int, then func()) ([]eventlog.Message, int) {
		t.Helper()
		l := open(t, t.TempDir(), opts)
		mustAppend(t, l, recs("first", first))
		c := l.Consumer("g")
		waits := 0
		embeddedlog.OnLinger(c, func() {
			waits++
			if waits > 1 {
				return
			}
			if late > 0 {
				mustAppend(t, l, recs("late", late))
			}
			if then != nil {
				then()
			}
		})
		msgs, err := c.Poll(ctx)
		if err != nil {
			t.Fatalf("Poll: %v", err)
		}
		return msgs, waits
	}
	if got, _ := poll(t.Context(), embeddedlog.Options{MinBatch: 20, Linger: time.Minute}, 10, 10, nil); len(got) != 20 {
		t.Errorf("MinBatch 20, Linger 1m: got %d messages, want 20 (the 10 appended while it lingered included)", len(got))
	}
	if got, _ := poll(t.Context(), embeddedlog.Options{MinBatch: 100, Linger: 50 * time.Millisecond}, 10, 0, nil); len(got) != 10 {
		t.Errorf("MinBatch 100, Linger 50ms over 10 records: got %d messages, want 10", len(got))
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if got, _ := poll(ctx, embeddedlog.Options{MinBatch: 100, Linger: time.Minute}, 10, 0, cancel); len(got) != 10 {
		t.Errorf("context ending while lingering: got %d messages, want the 10 gathered", len(got))
	}
	if got, waits := poll(t.Context(), embeddedlog.Options{MinBatch: 20, Linger: -1}, 10, 10, nil); len(got) != 10 || waits != 0 {
		t.Errorf("no linger: got %d messages after %d waits, want the first read's 10 and no wait", len(got), waits)
	}
}

func TestProgress(t *testing.T) {
	logtest.RunProgress(t, func(t *testing.T) (eventlog.Log, func(string) eventlog.Source, eventlog.Progress, func(string) string) {
		l := open(t, t.TempDir(), embeddedlog.Options{})
		return l, func(g string) eventlog.Source { return l.Consumer(g) }, l, func(g string) string { return g }
	})
}

func open(t testing.TB, dir string, opts embeddedlog.Options) *embeddedlog.Log {
	t.Helper()
	l, err := embeddedlog.OpenOptions(t.Context(), dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

func recs(prefix string, n int) []eventlog.Record {
	out := make([]eventlog.Record, n)
	for i := range out {
		out[i] = eventlog.Record{Kind: eventlog.KindPrediction, Key: "org/model", Value: fmt.Appendf(nil, "%s-%d", prefix, i)}
	}
	return out
}

func mustAppend(t testing.TB, l *embeddedlog.Log, r []eventlog.Record) {
	t.Helper()
	if err := l.Append(t.Context(), r); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// pollN polls c until it has n messages.
func pollN(t *testing.T, c eventlog.Source, n int) []eventlog.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var got []eventlog.Message
	for len(got) < n {
		m, err := c.Poll(ctx)
		if err != nil {
			t.Fatalf("Poll after %d of %d: %v", len(got), n, err)
		}
		got = append(got, m...)
	}
	return got
}

func values(msgs []eventlog.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Value)
	}
	return out
}

// TestReopen shows that committed offsets and records survive Close: a
// reopened log resumes each group after its commit and redelivers the rest.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	l, err := embeddedlog.Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	mustAppend(t, l, recs("a", 10))
	c := l.Consumer("g")
	got := pollN(t, c, 10)
	if got[0].Partition != 0 || got[0].Offset != 1 || got[9].Offset != 10 {
		t.Fatalf("first batch: got partition %d offsets %d..%d, want 0, 1..10", got[0].Partition, got[0].Offset, got[9].Offset)
	}
	if err := c.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	mustAppend(t, l, recs("b", 5))
	pollN(t, c, 5) // delivered, not committed
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	l = open(t, dir, embeddedlog.Options{})
	got = pollN(t, l.Consumer("g"), 5)
	if want := values(pollRecs(recs("b", 5))); fmt.Sprint(values(got)) != fmt.Sprint(want) {
		t.Fatalf("after reopen: got %q, want %q", values(got), want)
	}
	if got[0].Offset != 11 {
		t.Fatalf("after reopen: got first offset %d, want 11", got[0].Offset)
	}
}

func pollRecs(r []eventlog.Record) []eventlog.Message {
	out := make([]eventlog.Message, len(r))
	for i := range r {
		out[i] = eventlog.Message{Value: r[i].Value}
	}
	return out
}

func TestClosed(t *testing.T) {
	l, err := embeddedlog.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	c := l.Consumer("g")
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: got %v, want nil", err)
	}
	if err := l.Append(t.Context(), recs("x", 1)); !errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Append after Close: got %v, want an error wrapping eventlog.ErrUnavailable", err)
	}
	if _, err := c.Poll(t.Context()); !errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Poll after Close: got %v, want an error wrapping eventlog.ErrUnavailable", err)
	}
}

// TestCloseDrains shows that Close writes what was queued before it: no
// Append that returned nil is lost, and none hangs.
func TestCloseDrains(t *testing.T) {
	dir := t.TempDir()
	l, err := embeddedlog.Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		ok int
	)
	for i := range 32 {
		wg.Go(func() {
			for j := 0; ; j++ {
				err := l.Append(context.Background(), recs(fmt.Sprintf("%d-%d", i, j), 10))
				if err != nil {
					if !errors.Is(err, eventlog.ErrUnavailable) {
						t.Errorf("Append during Close: got %v, want nil or eventlog.ErrUnavailable", err)
					}
					return
				}
				mu.Lock()
				ok += 10
				mu.Unlock()
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wg.Wait()
	l = open(t, dir, embeddedlog.Options{})
	got := pollN(t, l.Consumer("g"), ok)
	if len(got) < ok {
		t.Fatalf("after reopen: got %d records, want at least the %d acknowledged", len(got), ok)
	}
}

func TestUnknownKind(t *testing.T) {
	l := open(t, t.TempDir(), embeddedlog.Options{})
	err := l.Append(t.Context(), []eventlog.Record{{Kind: "bogus", Key: "k"}})
	if err == nil || errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Append of an unknown kind: got %v, want a non-retryable error", err)
	}
}

func TestAppendCancelled(t *testing.T) {
	l := open(t, t.TempDir(), embeddedlog.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Append(ctx, recs("x", 1)); !errors.Is(err, eventlog.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a cancelled context: got %v, want eventlog.ErrUnavailable and context.Canceled", err)
	}
}

// TestLockedDatabase shows that a database another connection keeps locked
// past the busy timeout makes Append fail with eventlog.ErrUnavailable, and
// that the log works again once the lock is gone.
func TestLockedDatabase(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, embeddedlog.Options{BusyTimeout: 100 * time.Millisecond})
	db := sqlDB(t, dir)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatalf("Conn: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatalf("BEGIN EXCLUSIVE: %v", err)
	}
	err = l.Append(t.Context(), recs("x", 1))
	if !errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Append to a locked database: got %v, want an error wrapping eventlog.ErrUnavailable", err)
	}
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatalf("ROLLBACK: %v", err)
	}
	mustAppend(t, l, recs("y", 1))
}

// sqlDB opens the log's file beside the Log, as another process would.
func sqlDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, embeddedlog.FileName)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, embeddedlog.Options{TrimInterval: -1, TrimChunk: 100})

	// Nothing is deleted while no group is known.
	mustAppend(t, l, recs("a", 1000))
	trim := func(want int64) {
		t.Helper()
		n, err := l.Trim(t.Context())
		if err != nil {
			t.Fatalf("Trim: %v", err)
		}
		if n != want {
			t.Fatalf("Trim: got %d deleted, want %d", n, want)
		}
	}
	trim(0)

	// Two groups: only what both committed goes.
	a, b := l.Consumer("a"), l.Consumer("b")
	pollN(t, a, 1000)
	pollN(t, b, 1000)
	trim(0) // neither committed
	if err := a.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	trim(0) // b polled but did not commit
	if err := b.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	trim(1000)
	trim(0)

	// A reader of the same group starts after the deleted records.
	mustAppend(t, l, recs("b", 250))
	c := l.Consumer("a")
	msgs := pollN(t, c, 250)
	if msgs[0].Offset != 1001 {
		t.Fatalf("after Trim: got first offset %d, want 1001", msgs[0].Offset)
	}
	if err := c.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	trim(0) // b has not read them
	if err := l.DeleteGroup(t.Context(), "b"); err != nil {
		t.Fatalf("DeleteGroup: %v", err)
	}
	trim(250)

	// Offsets keep growing after the log was emptied.
	mustAppend(t, l, recs("c", 1))
	if m := pollN(t, c, 1); m[0].Offset != 1251 {
		t.Fatalf("after emptying: got offset %d, want 1251", m[0].Offset)
	}
}

// TestRetentionBackground shows the background task keeps the file from
// growing while a group keeps up.
func TestRetentionBackground(t *testing.T) {
	const rounds, perRound, size = 20, 1000, 1000
	dir := t.TempDir()
	l := open(t, dir, embeddedlog.Options{TrimInterval: 20 * time.Millisecond, TrimChunk: 300})
	c := l.Consumer("g")
	db := sqlDB(t, dir)
	value := make([]byte, size)
	var sizes []int64
	for round := range rounds {
		batch := make([]eventlog.Record, perRound)
		for i := range batch {
			batch[i] = eventlog.Record{Kind: eventlog.KindMetric, Key: "k", Value: value}
		}
		mustAppend(t, l, batch)
		pollN(t, c, len(batch))
		if err := c.Commit(t.Context()); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for rows(t, db) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d records left after 10s, want the background task to delete them", round, rows(t, db))
			}
			time.Sleep(10 * time.Millisecond)
		}
		sizes = append(sizes, filesSize(t, dir))
	}
	t.Logf("size of the database and its WAL by round: %v", sizes)
	// Move the WAL into the database: its file then holds every page the
	// log ever needed at once. The log is closed first: while its trim loop
	// still reads every 20 ms, a TRUNCATE checkpoint can answer busy and
	// leave the WAL (about 4 MB in steady state) in place, which would be
	// measured as database.
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var busy, walFrames, moved int
	if err := db.QueryRowContext(t.Context(), "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &walFrames, &moved); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	if busy != 0 {
		t.Fatalf("checkpoint with the log closed: got busy=%d, want 0", busy)
	}
	// Without retention it would hold rounds*perRound*size bytes.
	if got, total := filesSize(t, dir), int64(rounds*perRound*size); got > total/4 {
		t.Fatalf("database after %d rounds: got %d bytes, want at most %d", rounds, got, total/4)
	}
}

// rows counts the retained records.
func rows(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM events").Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

// filesSize returns the size of the log's database and its WAL.
func filesSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, name := range []string{embeddedlog.FileName, embeddedlog.FileName + "-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("stat: %v", err)
		}
		n += fi.Size()
	}
	return n
}
