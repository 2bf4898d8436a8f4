package eventlog

import (
	"context"
	"errors"
	"sync"
)

// Batches is a Source over batches fixed in advance, for tests and tools:
// Poll hands them out in order, then waits for its context to end.
type Batches struct {
	mu        sync.Mutex
	batches   [][]Message
	polled    int
	committed int
}

var _ Source = (*Batches)(nil)

// NewBatches returns a Source handing out bs.
func NewBatches(bs ...[]Message) *Batches { return &Batches{batches: bs} }

// Poll implements Source.
func (s *Batches) Poll(ctx context.Context) ([]Message, error) {
	s.mu.Lock()
	if s.polled < len(s.batches) {
		b := s.batches[s.polled]
		s.polled++
		s.mu.Unlock()
		return b, nil
	}
	s.mu.Unlock()
	<-ctx.Done()
	return nil, ctx.Err()
}

// Commit implements Source.
func (s *Batches) Commit(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.committed = s.polled
	return nil
}

// Close implements Source.
func (s *Batches) Close() error { return nil }

// Committed is how many batches are committed.
func (s *Batches) Committed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.committed
}

// Polled is how many batches Poll has handed out.
func (s *Batches) Polled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polled
}

// PrefixBatches is Batches that also commits a prefix of what it handed
// out (PrefixCommitter), as the embedded log does.
type PrefixBatches struct{ Batches }

var _ PrefixCommitter = (*PrefixBatches)(nil)

// NewPrefixBatches returns a PrefixCommitter Source handing out bs.
func NewPrefixBatches(bs ...[]Message) *PrefixBatches {
	return &PrefixBatches{Batches{batches: bs}}
}

// CommitThrough implements PrefixCommitter: msgs must be a batch Poll
// handed out (the same slice); it and the batches before it are committed.
func (s *PrefixBatches) CommitThrough(_ context.Context, msgs []Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.polled - 1; i >= 0; i-- {
		if b := s.batches[i]; len(b) > 0 && len(msgs) > 0 && &b[0] == &msgs[0] {
			s.committed = max(s.committed, i+1)
			return nil
		}
	}
	return errors.New("eventlog: CommitThrough of a batch Poll did not hand out")
}
