// Package backlog holds ingest back while the processors are behind. A
// Gate reads, a few times a second, how many records of the event log
// the processors' consumer group has not committed. While that backlog is
// over its bound and the group is making progress, the gate is closed:
// ingest requests wait for it to open before they append, so clients send
// at the rate the processors store, and what is acknowledged is queryable
// seconds later rather than minutes.
//
// A group that commits nothing for a while (the processor role stopped,
// or its analytical store down) opens the gate: the log then buffers
// what clients send, as it is there to do, and the processor catches up
// when it is back. The gate never loses or refuses data by itself; a
// request that has waited its longest gets ErrBehind, which the API
// answers 503 with Retry-After.
//
// It imports eventlog and the platform's clock only.
package backlog

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/clock"
)

// ErrBehind is returned by Admit when the gate stayed closed for the
// request's longest wait: the processors are behind, the request may be
// retried.
var ErrBehind = errors.New("backlog: the processors are behind")

// Defaults of Gate's zero fields.
const (
	DefaultEvery   = 100 * time.Millisecond
	DefaultStalled = 5 * time.Second
	DefaultMaxWait = 10 * time.Second
)

// Gate admits ingest requests while the processors' backlog is within
// Max. The zero value, and a nil *Gate, admit everything.
type Gate struct {
	// Progress reads the log's end and the group's committed offsets.
	Progress eventlog.Progress
	// Group is the processors' consumer group as Progress names it.
	Group string
	// Max is the most records the group may have left to commit before the
	// gate closes; 0 or less never closes it.
	Max int64
	// Every is how often Run reads the backlog (DefaultEvery).
	Every time.Duration
	// Stalled: a group that has committed nothing for this long is not
	// making progress, and the gate opens (DefaultStalled).
	Stalled time.Duration
	// MaxWait is the longest Admit waits (DefaultMaxWait).
	MaxWait time.Duration
	// OnChange, when set, is called as the gate closes (true) or opens,
	// with the backlog read (a log line, a metric).
	OnChange func(closed bool, backlog int64)
	// Clock defaults to the system clock.
	Clock clock.Clock

	mu        sync.Mutex
	closed    bool
	opened    chan struct{} // closed when the gate opens; nil while open
	settled   bool          // a reading was taken
	backlog   int64         // the backlog read last
	committed int64         // the sum of the group's offsets read last
	progress  time.Time     // when that sum last grew (zero: not seen to)
}

// Admit returns nil at once while the gate is open; while it is closed it
// waits for it to open, and returns ErrBehind after MaxWait or ctx's error
// when ctx ends first.
func (g *Gate) Admit(ctx context.Context) error {
	if g == nil || g.Max <= 0 {
		return nil
	}
	g.mu.Lock()
	opened := g.opened
	g.mu.Unlock()
	if opened == nil {
		return nil
	}
	wait := g.MaxWait
	if wait <= 0 {
		wait = DefaultMaxWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-opened:
		return nil
	case <-t.C:
		return ErrBehind
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Closed reports whether the gate holds requests back.
func (g *Gate) Closed() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Backlog returns the backlog read last, and false before any reading.
func (g *Gate) Backlog() (int64, bool) {
	if g == nil {
		return 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.backlog, g.settled
}

// Run reads the backlog every Every until ctx ends, closing and opening
// the gate. A reading that fails (the log unreachable) opens it: ingest
// then answers for the log itself.
func (g *Gate) Run(ctx context.Context) error {
	if g.Max <= 0 {
		return nil
	}
	every := g.Every
	if every <= 0 {
		every = DefaultEvery
	}
	for {
		backlog, committed, err := g.read(ctx)
		if ctx.Err() != nil {
			g.observe(g.Clock.Now(), 0, 0, false)
			return nil
		}
		g.observe(g.Clock.Now(), backlog, committed, err == nil)
		if !clock.Sleep(ctx, every) {
			g.observe(g.Clock.Now(), 0, 0, false)
			return nil
		}
	}
}

// read returns the group's backlog over every kind and the sum of its
// committed offsets.
func (g *Gate) read(ctx context.Context) (backlog, committed int64, err error) {
	end, err := g.Progress.End(ctx)
	if err != nil {
		return 0, 0, err
	}
	offsets, err := g.Progress.Committed(ctx, g.Group)
	if err != nil {
		return 0, 0, err
	}
	for p, off := range end {
		backlog += max(off-offsets[p], 0)
	}
	for _, off := range offsets {
		committed += off
	}
	return backlog, committed, nil
}

// observe takes one reading at now (ok false: none could be made, which
// opens the gate) and closes or opens the gate: closed while the backlog
// is over Max and the group's committed offsets grew within Stalled (the
// first reading only sets where they stand).
func (g *Gate) observe(now time.Time, backlog, committed int64, ok bool) {
	stalled := g.Stalled
	if stalled <= 0 {
		stalled = DefaultStalled
	}
	g.mu.Lock()
	if ok {
		if g.settled && committed > g.committed {
			g.progress = now
		}
		g.settled, g.committed, g.backlog = true, committed, backlog
	}
	closed := ok && backlog > g.Max && !g.progress.IsZero() && now.Sub(g.progress) < stalled
	changed := closed != g.closed
	g.closed = closed
	switch {
	case closed && g.opened == nil:
		g.opened = make(chan struct{})
	case !closed && g.opened != nil:
		close(g.opened)
		g.opened = nil
	}
	g.mu.Unlock()
	if changed && g.OnChange != nil {
		g.OnChange(closed, backlog)
	}
}
