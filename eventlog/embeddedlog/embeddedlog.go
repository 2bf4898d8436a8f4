// Package embeddedlog is the event log of the embedded default: a durable,
// single-partition log inside its own SQLite file in the data folder, with
// the same at-least-once contract as Kafka.
//
// Writers are durable-before-nil: Append returns nil only after the
// transaction holding its records is committed with synchronous=FULL, that
// is fsynced. Concurrent Append calls are group-committed: one writer
// goroutine writes everything waiting in one transaction and then releases
// every caller with the outcome of its own records.
//
// Readers are consumer groups (Log.Consumer): each group reads the whole log
// in sequence order and stores its committed offset in the same file. A
// group close behind the head is handed the records this process
// committed last from memory (a bounded tail, filled after each fsynced
// commit, Options.TailRecords and TailBytes), so that the process that
// appended them does not read them back from the file; a group further
// behind, or after a restart, reads the file. Offsets and commits are the
// same either way.
// Records every known group has committed are deleted in bounded chunks
// (Log.Trim, run periodically), so the file stops growing.
//
// It implements the eventlog contract and imports nothing else of Vigil; it
// must never import the ingest endpoints or the processors that use it.
package embeddedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/vigilhq/vigil/eventlog"
)

// FileName is the log's database file inside the data folder, separate from
// the transactional store's file.
const FileName = "events.db"

// Defaults of Options. MinBatch and Linger: a processor pays a fixed cost
// per batch (a transaction, its statements, the profiles' save), which
// under single-event logging, where each group commit brings a few
// records, it paid for every few records; gathering for up to 20 ms adds
// at most that to the time until stats count an event.
const (
	DefaultPollMax      = 5000
	DefaultMinBatch     = 1000
	DefaultLinger       = 20 * time.Millisecond
	DefaultPollInterval = time.Second
	DefaultTrimInterval = time.Minute
	DefaultTrimChunk    = 10000
	DefaultBusyTimeout  = 10 * time.Second
)

// Options tunes a Log. The zero value takes every default.
type Options struct {
	// PollMax is the most messages one Poll returns (DefaultPollMax).
	PollMax int
	// MinBatch and Linger: a Poll that has fewer than MinBatch messages
	// keeps reading for up to Linger after its first, then returns what it
	// has (DefaultMinBatch, DefaultLinger; a negative Linger returns the
	// first read at once).
	MinBatch int
	Linger   time.Duration
	// PollInterval is how often a waiting Poll looks for records even
	// without a wake-up from Append (DefaultPollInterval).
	PollInterval time.Duration
	// TrimInterval is how often the log deletes the records every group
	// has committed (DefaultTrimInterval); negative disables the
	// background task (Trim can still be called).
	TrimInterval time.Duration
	// TrimChunk is the most records one retention transaction deletes
	// (DefaultTrimChunk).
	TrimChunk int
	// BusyTimeout is how long a statement waits for a lock another
	// connection holds before it fails (DefaultBusyTimeout).
	BusyTimeout time.Duration
	// Logger receives the background task's errors (slog.Default()).
	Logger *slog.Logger
	// TailRecords and TailBytes bound the records committed last that
	// the log keeps in memory for its consumers (DefaultTailRecords,
	// DefaultTailBytes); negative keeps none: every Poll reads the file.
	TailRecords, TailBytes int
}

func (o Options) withDefaults() Options {
	if o.PollMax <= 0 {
		o.PollMax = DefaultPollMax
	}
	if o.MinBatch <= 0 {
		o.MinBatch = DefaultMinBatch
	}
	if o.Linger == 0 {
		o.Linger = DefaultLinger
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.TrimInterval == 0 {
		o.TrimInterval = DefaultTrimInterval
	}
	if o.TrimChunk <= 0 {
		o.TrimChunk = DefaultTrimChunk
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TailRecords == 0 {
		o.TailRecords = DefaultTailRecords
	}
	if o.TailBytes == 0 {
		o.TailBytes = DefaultTailBytes
	}
	return o
}

const schema = `
CREATE TABLE IF NOT EXISTS events (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	kind        TEXT    NOT NULL,
	key         TEXT    NOT NULL,
	value       BLOB    NOT NULL,
	appended_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS group_offsets (
	consumer_group TEXT    PRIMARY KEY,
	committed      INTEGER NOT NULL,
	updated_at     INTEGER NOT NULL
);`

// Rows per multi-row INSERT: a batch is written in statements of
// maxInsertRows rows, then one statement of exactly the rows left, each
// size prepared once. 4 parameters a row stay far below SQLite's limit of
// 32766.
const maxInsertRows = 256

// Log is the embedded event log. It implements eventlog.Log; Consumer returns
// its readers. All methods are safe for concurrent use.
type Log struct {
	opts Options
	db   *sql.DB

	// The writer goroutine owns wconn and its statements.
	wconn  *sql.Conn
	insert map[int]*sql.Stmt // by rows, prepared on first use
	args   []any
	// pending are the records of the transaction being written, each run
	// with its first sequence number, published to tail once committed.
	pending []pendingRun

	tail *tail

	mu     sync.Mutex
	closed bool
	queue  []*job
	kick   chan struct{} // capacity 1: the queue is not empty

	wakeMu sync.Mutex
	wake   chan struct{} // closed and replaced when records are committed

	stop       chan struct{}
	writerDone chan struct{}
	trimDone   chan struct{}
}

var _ eventlog.Log = (*Log)(nil)

// Open opens, creating it if needed, the log in the data folder dir with
// default Options.
func Open(ctx context.Context, dir string) (*Log, error) {
	return OpenOptions(ctx, dir, Options{})
}

// OpenOptions opens, creating it if needed, the log in the data folder dir.
// Close releases it.
func OpenOptions(ctx context.Context, dir string, opts Options) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("embeddedlog: create data folder %s: %w", dir, err)
	}
	opts = opts.withDefaults()
	dsn := "file:" + filepath.Join(dir, FileName) +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", opts.BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=journal_size_limit(67108864)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("embeddedlog: open: %w", err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	l := &Log{
		opts:       opts,
		db:         db,
		insert:     make(map[int]*sql.Stmt),
		kick:       make(chan struct{}, 1),
		wake:       make(chan struct{}),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
		trimDone:   make(chan struct{}),
		tail:       newTail(opts.TailRecords, opts.TailBytes),
	}
	if err := l.init(ctx); err != nil {
		l.closeDB()
		return nil, fmt.Errorf("%w (%s)", err, filepath.Join(dir, FileName))
	}
	go l.writer()
	if l.opts.TrimInterval > 0 {
		go l.trimLoop()
	} else {
		close(l.trimDone)
	}
	return l, nil
}

// init creates the tables and prepares the writer's statements.
func (l *Log) init(ctx context.Context) error {
	if _, err := l.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("embeddedlog: create tables: %w", err)
	}
	c, err := l.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("embeddedlog: writer connection: %w", err)
	}
	l.wconn = c
	l.args = make([]any, 0, 4*maxInsertRows)
	return nil
}

// Append implements eventlog.Log: it returns nil only once every record of
// recs is committed and fsynced. Errors from the database, from a closed
// Log, and ctx ending while the records wait wrap eventlog.ErrUnavailable and
// are retryable; some of the records may have been written all the same.
// An unknown kind is a caller's error, not retryable. Append keeps no
// reference to recs once it returns.
func (l *Log) Append(ctx context.Context, recs []eventlog.Record) error {
	if len(recs) == 0 {
		return nil
	}
	for i := range recs {
		if !slices.Contains(eventlog.Kinds, recs[i].Kind) {
			return fmt.Errorf("embeddedlog: append: record %d: unknown kind %q", i, recs[i].Kind)
		}
	}
	j := newJob()
	j.recs = recs
	return l.do(ctx, j, "append")
}

// A job is one caller's share of a group commit: records to insert, or a
// statement of the consumers (offsets, retention).
type job struct {
	ctx   context.Context
	recs  []eventlog.Record
	fn    func(ctx context.Context, c *sql.Conn) error
	done  chan error
	state atomic.Int32 // queued, taken or abandoned
}

// jobPool keeps the jobs done with, each with its channel: a job and its
// channel were three allocations an Append.
var jobPool = sync.Pool{New: func() any { return &job{done: make(chan error, 1)} }}

// newJob returns an empty queued job.
func newJob() *job { return jobPool.Get().(*job) }

// fnJob returns a job that runs fn in the writer's transaction.
func fnJob(fn func(ctx context.Context, c *sql.Conn) error) *job {
	j := newJob()
	j.fn = fn
	return j
}

// release gives j back once neither its caller nor the writer holds it:
// it never reached the queue, or the writer has sent its one outcome and
// it was received. An abandoned job is left to the GC, since the writer
// may still look at its state.
func (j *job) release() {
	j.ctx, j.recs, j.fn = nil, nil, nil
	j.state.Store(queued)
	jobPool.Put(j)
}

// States of a job: the writer takes a queued job, or its caller abandons
// it; never both, so that nothing reads a caller's records after its
// Append returned.
const (
	queued int32 = iota
	taken
	abandoned
)

// errClosed is the cause of every error after Close.
var errClosed = errors.New("log closed")

// do queues j, a newJob, for the writer and waits for its outcome; j is
// released.
func (l *Log) do(ctx context.Context, j *job, op string) error {
	if err := ctx.Err(); err != nil {
		j.release()
		return fmt.Errorf("embeddedlog: %s: %w: %w", op, eventlog.ErrUnavailable, err)
	}
	j.ctx = ctx
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		j.release()
		return fmt.Errorf("embeddedlog: %s: %w: %w", op, eventlog.ErrUnavailable, errClosed)
	}
	l.queue = append(l.queue, j)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	var err error
	select {
	case err = <-j.done:
	case <-ctx.Done():
		if j.state.CompareAndSwap(queued, abandoned) {
			return fmt.Errorf("embeddedlog: %s: %w: %w", op, eventlog.ErrUnavailable, ctx.Err())
		}
		// The writer holds the job: its transaction ends soon.
		err = <-j.done
	}
	j.release()
	if err != nil {
		return fmt.Errorf("embeddedlog: %s: %w", op, err)
	}
	return nil
}

// writer runs the group commits until Close, then drains the queue.
func (l *Log) writer() {
	defer close(l.writerDone)
	for {
		select {
		case <-l.kick:
		case <-l.stop:
			// Close set closed: nothing joins the queue any more.
			for {
				jobs := l.take()
				if len(jobs) == 0 {
					return
				}
				l.commit(jobs)
			}
		}
		// Whatever queued while the last transaction ran goes into
		// the next one.
		if jobs := l.take(); len(jobs) > 0 {
			l.commit(jobs)
		}
	}
}

func (l *Log) take() []*job {
	l.mu.Lock()
	defer l.mu.Unlock()
	jobs := l.queue
	l.queue = nil
	return jobs
}

// commit writes jobs in one transaction and tells each its outcome. When
// one job's own statement fails (say, a value too big), the transaction is
// rolled back, that job gets its error and the others are written again
// without it. When the database fails (locked, disk full, closed), every
// job gets that error.
func (l *Log) commit(jobs []*job) {
	live := jobs[:0]
	for _, j := range jobs {
		if !j.state.CompareAndSwap(queued, taken) {
			continue // abandoned by its caller
		}
		// A caller about to give up is not written either: shed load.
		if err := j.ctx.Err(); err != nil {
			j.done <- fmt.Errorf("%w: %w", eventlog.ErrUnavailable, err)
			continue
		}
		live = append(live, j)
	}
	ctx := context.Background()
	for len(live) > 0 {
		failed := -1
		l.pending = l.pending[:0]
		err := l.inTx(ctx, func() error {
			for i, j := range live {
				if err := l.run(ctx, j); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if err == nil {
			for _, p := range l.pending {
				l.tail.publish(p.first, p.recs)
			}
			clear(l.pending)
			l.pending = l.pending[:0]
			for _, j := range live {
				j.done <- nil
			}
			l.signal()
			return
		}
		if failed < 0 || systemic(err) {
			for _, j := range live {
				j.done <- fmt.Errorf("%w: %w", eventlog.ErrUnavailable, err)
			}
			return
		}
		live[failed].done <- err
		live = slices.Delete(live, failed, failed+1)
	}
}

// systemic reports whether err is the database's failure rather than one
// statement's: then the log cannot take records now (eventlog.ErrUnavailable).
func systemic(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return true // closed database, driver failure
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_RANGE:
		return false
	}
	return true
}

// unavailable wraps a database error: the log cannot take records now.
func unavailable(err error) error {
	if err == nil || errors.Is(err, eventlog.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", eventlog.ErrUnavailable, err)
}

// inTx runs fn in an IMMEDIATE transaction on the writer's connection.
func (l *Log) inTx(ctx context.Context, fn func() error) error {
	if _, err := l.wconn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(); err != nil {
		_, _ = l.wconn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	if _, err := l.wconn.ExecContext(ctx, "COMMIT"); err != nil {
		_, _ = l.wconn.ExecContext(ctx, "ROLLBACK")
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// run executes one job inside the writer's transaction.
func (l *Log) run(ctx context.Context, j *job) error {
	if j.fn != nil {
		return j.fn(ctx, l.wconn)
	}
	now := time.Now().UnixMilli()
	defer clear(l.args[:cap(l.args)]) // keep no values alive
	for recs := j.recs; len(recs) > 0; {
		n := min(len(recs), maxInsertRows)
		st, err := l.insertStmt(ctx, n)
		if err != nil {
			return err
		}
		args := l.args[:0]
		for i := range n {
			r := &recs[i]
			args = append(args, r.Kind, r.Key, blob(r.Value), now)
		}
		res, err := st.ExecContext(ctx, args...)
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		if err := l.keep(res, recs[:n]); err != nil {
			return err
		}
		recs = recs[n:]
	}
	return nil
}

// pendingRun is one statement's records for the tail: their sequence
// numbers are first, first+1, ...
type pendingRun struct {
	first int64
	recs  []tailRecord
}

// keep notes the records one INSERT wrote, for the tail once the
// transaction commits: copies of them (Append keeps no reference to the
// caller's records) in one allocation. One statement's rows take
// consecutive sequence numbers, the last of which is the insert's rowid.
func (l *Log) keep(res sql.Result, recs []eventlog.Record) error {
	if len(l.tail.ring) == 0 {
		return nil
	}
	last, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("insert: last sequence number: %w", err)
	}
	size := 0
	for i := range recs {
		size += len(recs[i].Value)
	}
	buf := make([]byte, 0, size)
	run := pendingRun{first: last - int64(len(recs)) + 1, recs: make([]tailRecord, len(recs))}
	for i := range recs {
		start := len(buf)
		buf = append(buf, recs[i].Value...)
		run.recs[i] = tailRecord{kind: recs[i].Kind, key: recs[i].Key, value: buf[start:len(buf):len(buf)]}
	}
	l.pending = append(l.pending, run)
	return nil
}

// insertStmt returns the statement inserting n rows.
func (l *Log) insertStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if st := l.insert[n]; st != nil {
		return st, nil
	}
	var b strings.Builder
	b.WriteString("INSERT INTO events (kind, key, value, appended_at) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?)")
	}
	st, err := l.wconn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, fmt.Errorf("prepare insert: %w", err)
	}
	l.insert[n] = st
	return st, nil
}

// blob keeps a nil value from being stored as NULL.
func blob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// signal wakes every waiting Poll.
func (l *Log) signal() {
	l.wakeMu.Lock()
	close(l.wake)
	l.wake = make(chan struct{})
	l.wakeMu.Unlock()
}

// wakeup returns the channel closed by the next signal.
func (l *Log) wakeup() <-chan struct{} {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	return l.wake
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Close writes the records already queued, stops the background task and
// closes the file. Afterwards Append and Poll fail with errors wrapping
// eventlog.ErrUnavailable. Close is idempotent.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.writerDone
	<-l.trimDone
	l.signal()
	return l.closeDB()
}

func (l *Log) closeDB() error {
	var errs []error
	for _, st := range l.insert {
		errs = append(errs, st.Close())
	}
	if l.wconn != nil {
		errs = append(errs, l.wconn.Close())
	}
	errs = append(errs, l.db.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("embeddedlog: close: %w", err)
	}
	return nil
}
