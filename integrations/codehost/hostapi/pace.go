package hostapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Pacing of the calls to the code host, per GitHub value: at most one
// call every callInterval, at most maxQueued of waiting, and none while
// the host's rate-limit headers ask to wait.
const (
	callInterval = 50 * time.Millisecond
	maxQueued    = 10 * time.Second
)

// pacer spaces calls and holds them back while the host's rate limit is
// spent.
type pacer struct {
	mu      sync.Mutex
	next    time.Time
	blocked time.Time
}

// wait returns when a call may go, a *Busy while the host asked to wait
// or too many calls queue, or ctx's error.
func (p *pacer) wait(ctx context.Context) error {
	p.mu.Lock()
	now := time.Now()
	if p.blocked.After(now) {
		d := p.blocked.Sub(now)
		p.mu.Unlock()
		return &Busy{Wait: d, Err: errors.New("codehost: the host's rate limit is spent")}
	}
	slot := now
	if p.next.After(now) {
		slot = p.next
	}
	if slot.Sub(now) > maxQueued {
		p.mu.Unlock()
		return &Busy{Wait: slot.Sub(now), Err: errors.New("codehost: too many calls to the host queue")}
	}
	p.next = slot.Add(callInterval)
	p.mu.Unlock()
	if d := slot.Sub(now); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// saw holds calls back when a response says the rate limit is spent.
func (p *pacer) saw(res *http.Response) {
	if res.StatusCode != http.StatusForbidden && res.StatusCode != http.StatusTooManyRequests {
		return
	}
	now := time.Now()
	if d, ok := busy(res.Header, now); ok {
		p.mu.Lock()
		if until := now.Add(d); until.After(p.blocked) {
			p.blocked = until
		}
		p.mu.Unlock()
	}
}

// paced is the transport that applies a pacer.
type paced struct {
	p    *pacer
	base http.RoundTripper
}

func (t paced) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.p.wait(req.Context()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	res, err := t.base.RoundTrip(req)
	if err == nil {
		t.p.saw(res)
	}
	return res, err
}
