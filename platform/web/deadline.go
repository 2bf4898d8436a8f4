package web

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// deadlines bounds every handler's context (c.UserContext) by d. The
// requests begun within one tick of d/16 share one context, which ends
// d+d/16 after the tick began: each handler has from d to d+d/16. A
// context of its own (context.WithTimeout) cost every request five
// allocations and a timer set and stopped; a shared one costs a context
// and a timer a tick. A shared context is never cancelled before its
// deadline, so a handler's context does not end when the handler returns:
// nothing may go on using it after then (Fiber's context is reused too).
type deadlines struct {
	d   time.Duration
	mu  sync.Mutex // held while a tick's context is made
	cur atomic.Pointer[tick]
}

// tick is the context of the requests begun before until.
type tick struct {
	ctx    context.Context
	cancel context.CancelFunc // released by the context's own timer
	until  time.Time
}

// handler is the middleware. NewApp installs it ahead of any middleware
// that could set a context of its own, so the handler's context derives
// from the background alone.
func (s *deadlines) handler(c *fiber.Ctx) error {
	c.SetUserContext(s.context(time.Now()))
	return c.Next()
}

// context returns the shared context of a request begun at now.
func (s *deadlines) context(now time.Time) context.Context {
	if t := s.cur.Load(); t != nil && now.Before(t.until) {
		return t.ctx
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.cur.Load(); t != nil && now.Before(t.until) {
		return t.ctx
	}
	step := s.d / 16
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(s.d+step))
	s.cur.Store(&tick{ctx: ctx, cancel: cancel, until: now.Add(step)})
	return ctx
}
