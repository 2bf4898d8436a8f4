package clock

import "sync"

// Waker is a poll loop's doorbell: Wake asks the loop to poll now rather
// than at its next tick. Wake never blocks, and rings that come while the
// loop is busy fold into one. The zero Waker is ready to use.
type Waker struct {
	once sync.Once
	c    chan struct{}
}

func (w *Waker) ch() chan struct{} {
	w.once.Do(func() { w.c = make(chan struct{}, 1) })
	return w.c
}

// Wake rings the bell.
func (w *Waker) Wake() {
	select {
	case w.ch() <- struct{}{}:
	default:
	}
}

// C is the channel a ring arrives on, for the loop to select on beside its
// ticker.
func (w *Waker) C() <-chan struct{} { return w.ch() }
