package eventlog

import (
	"context"
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
