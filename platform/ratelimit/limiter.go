package ratelimit

import (
	"context"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"time"
)

// Rule is one bucket, e.g. {Name: "standard", Limit: 1000, Window: time.Hour}:
// at most Limit requests per subject in any Window. Name tells rules apart in
// the Store, so rules sharing a Store need distinct names.
type Rule struct {
	Name   string
	Limit  int64
	Window time.Duration
}

// Decision is the outcome of one Allow: enough to set 429 + Retry-After +
// X-RateLimit-Limit/Remaining/Reset.
type Decision struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the rule's Limit.
	Limit int64
	// Remaining is how many more requests would be allowed right now.
	Remaining int64
	// Reset is when the requests counted so far stop counting entirely if no
	// more arrive, i.e. when the full Limit is available again.
	Reset time.Time
	// RetryAfter, set when the request is rejected, is how long until one
	// more request would be allowed if no others arrive meanwhile.
	RetryAfter time.Duration
}

// Limiter counts requests per (rule, subject) with a sliding-window counter:
// the count in the current fixed window plus the previous window's count
// weighted by the part of it still inside the sliding window, so there is no
// 2x burst at window edges. A request is allowed when that estimate, the
// request included, stays within Limit. Windows are aligned to the Unix
// epoch.
//
// A request that the counts already rule out is rejected without being
// counted, so rejected requests do not consume quota. Checking and counting
// are separate Store calls, though: when concurrent requests take the last
// units between them, the later ones are counted and then rejected. The limit
// is never exceeded; quota is over-counted only by such lost races.
//
// Store must be set; Now defaults to time.Now. A Limiter is safe for
// concurrent use, and Limiters sharing a Store share quota.
type Limiter struct {
	Store Store
	Now   func() time.Time
	// Prefix goes before every subject in the keys: the kind of subject
	// counted ("org:", "ip:"), so that one Store counts several kinds.
	Prefix string

	mu sync.Mutex
	// keys keeps the window keys made last for each rule and subject, so
	// that a request in a window seen before builds no key (at most
	// maxKeyCache entries, then it starts afresh).
	keys map[subjectKey]windowKeys
}

// subjectKey names the keys of one rule and subject.
type subjectKey struct{ rule, subject string }

// windowKeys are the Store keys of the fixed windows idx-1 and idx.
type windowKeys struct {
	idx       int64
	prev, cur string
}

// maxKeyCache bounds a Limiter's keys.
const maxKeyCache = 10_000

// Allow counts one request by subject under r and reports whether it may
// proceed. The Limiter keeps subject: it must not alias a buffer that is
// reused (such as a string Fiber makes over its request). An error
// wrapping ErrUnavailable means the Store failed; any other error means r
// is invalid (Limit < 1 or Window <= 0).
func (l *Limiter) Allow(ctx context.Context, r Rule, subject string) (Decision, error) {
	if r.Limit < 1 || r.Window <= 0 {
		return Decision{}, fmt.Errorf("ratelimit: invalid rule %q: limit %d, window %v", r.Name, r.Limit, r.Window)
	}
	if l.Store == nil {
		return Decision{}, errNoStore
	}
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	w := int64(r.Window)
	idx := floorDiv(now.UnixNano(), w)
	elapsed := time.Duration(now.UnixNano() - idx*w)
	start := now.Add(-elapsed) // in now's Location

	prevKey, curKey := l.windowKeys(r.Name, subject, idx)
	if sl, ok := l.Store.(Slider); ok && r.Limit <= MaxSlide && r.Window <= MaxSlide {
		return l.slide(ctx, sl, r, Step{PrevKey: prevKey, CurKey: curKey, Limit: r.Limit, Window: r.Window, Elapsed: elapsed}, start)
	}
	prev, err := l.Store.Get(ctx, prevKey)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: rule %q: %w", r.Name, err)
	}
	cur, err := l.Store.Get(ctx, curKey)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: rule %q: %w", r.Name, err)
	}
	s := slide{limit: r.Limit, window: r.Window, prev: prev, cur: cur}
	if s.used(elapsed)+1 <= r.Limit {
		// The counter must outlive the next window, where it weighs as prev.
		if s.cur, err = l.Store.Incr(ctx, curKey, 2*r.Window); err != nil {
			return Decision{}, fmt.Errorf("ratelimit: rule %q: %w", r.Name, err)
		}
		if u := s.used(elapsed); u <= r.Limit {
			return Decision{Allowed: true, Limit: r.Limit, Remaining: r.Limit - u, Reset: s.reset(start)}, nil
		}
	}
	return Decision{
		Limit:      r.Limit,
		Remaining:  0, // rejected: the sliding count is at or above the limit
		Reset:      s.reset(start),
		RetryAfter: s.retryAfter(elapsed),
	}, nil
}

// slide is Allow on a Slider: its one call reads both counts and counts
// the request when they leave room for it, atomically, so no race is lost.
func (l *Limiter) slide(ctx context.Context, sl Slider, r Rule, step Step, start time.Time) (Decision, error) {
	prev, cur, counted, err := sl.Slide(ctx, step)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: rule %q: %w", r.Name, err)
	}
	s := slide{limit: r.Limit, window: r.Window, prev: prev, cur: cur}
	if counted {
		return Decision{Allowed: true, Limit: r.Limit, Remaining: r.Limit - s.used(step.Elapsed), Reset: s.reset(start)}, nil
	}
	return Decision{Limit: r.Limit, Reset: s.reset(start), RetryAfter: s.retryAfter(step.Elapsed)}, nil
}

// Slider is a Store that takes a Limiter's step for one request in one
// call (redisstore.Store: one script, one round trip, where Get, Get and
// Incr take three). A Limiter uses it when its Store has it, for rules
// whose Limit and Window (in nanoseconds) are at most MaxSlide.
type Slider interface {
	// Slide reads the counters step.PrevKey and step.CurKey (0 when
	// missing) and, when step.Fits them, adds 1 to CurKey as Incr does
	// with a ttl of 2*step.Window, all atomically. It returns the counts
	// (cur after the increment, if any) and whether it counted.
	Slide(ctx context.Context, step Step) (prev, cur int64, counted bool, err error)
}

// MaxSlide bounds the Limit and the Window (in nanoseconds, about 104
// days) of the rules a Limiter hands to a Slider: 2^53, which a Lua
// script's numbers (float64) hold exactly.
const MaxSlide = 1 << 53

// Step is one request's sliding-window step in its current fixed window.
type Step struct {
	// PrevKey and CurKey count the previous and the current fixed window.
	PrevKey, CurKey string
	Limit           int64
	Window, Elapsed time.Duration
}

// Fits reports whether one more request fits beside the counts prev and
// cur: cur + ceil(prev * (Window-Elapsed) / Window) + 1 <= Limit, the
// Limiter's rule, which a Slider must decide exactly so.
func (s Step) Fits(prev, cur int64) bool {
	return slide{limit: s.Limit, window: s.Window, prev: prev, cur: cur}.used(s.Elapsed)+1 <= s.Limit
}

// slide is the state of one (rule, subject) in its current window.
type slide struct {
	limit     int64
	window    time.Duration
	prev, cur int64 // counts of the previous and the current fixed window
}

// used returns the sliding count at elapsed into the current window.
func (s slide) used(elapsed time.Duration) int64 {
	return s.cur + weigh(s.prev, s.window, elapsed)
}

// retryAfter returns how long after elapsed one more request fits, assuming
// no other requests arrive.
func (s slide) retryAfter(elapsed time.Duration) time.Duration {
	if s.cur+1 <= s.limit {
		// It fits later in this window, once prev weighs little enough.
		return firstFit(elapsed, s.window, func(e time.Duration) bool { return s.used(e)+1 <= s.limit }) - elapsed
	}
	// The next window, where cur becomes the weighted previous count.
	next := slide{limit: s.limit, window: s.window, prev: s.cur}
	return s.window - elapsed + firstFit(0, s.window, func(e time.Duration) bool { return next.used(e)+1 <= s.limit })
}

// reset returns when everything counted so far stops counting.
func (s slide) reset(start time.Time) time.Time {
	if s.cur > 0 {
		return start.Add(2 * s.window)
	}
	return start.Add(s.window)
}

// weigh returns ceil(n * (window-elapsed) / window): the part of the
// previous window's count n still inside the sliding window. Rounding up
// keeps the integer comparison with the limit exact.
func weigh(n int64, window, elapsed time.Duration) int64 {
	if n <= 0 || elapsed >= window {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(window-elapsed))
	q, rem := bits.Div64(hi, lo, uint64(window)) // q < n: hi < window, no panic
	if rem != 0 {
		q++
	}
	return int64(q)
}

// firstFit returns the least e in (lo, hi] with ok(e), given ok(hi) and ok
// monotone (false then true).
func firstFit(lo, hi time.Duration, ok func(time.Duration) bool) time.Duration {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// windowKeys returns the Store keys of the windows idx-1 and idx of rule
// and subject, made once for each window.
func (l *Limiter) windowKeys(rule, subject string, idx int64) (prev, cur string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sk := subjectKey{rule, subject}
	k, ok := l.keys[sk]
	switch {
	case ok && k.idx == idx:
		return k.prev, k.cur
	case ok && k.idx == idx-1:
		k.prev = k.cur
	default:
		k.prev = windowKey(rule, l.Prefix, subject, idx-1)
	}
	k.idx, k.cur = idx, windowKey(rule, l.Prefix, subject, idx)
	if l.keys == nil || len(l.keys) >= maxKeyCache {
		l.keys = make(map[subjectKey]windowKeys)
	}
	l.keys[sk] = k
	return k.prev, k.cur
}

// windowKey returns the Store key counting the requests of prefix+subject
// under rule in the fixed window idx. The name's length keeps names and
// subjects that contain colons from colliding. The braces make the keys of one rule and
// subject a Redis Cluster hash tag: whatever the first "{...}" of a key
// holds, it is the same in every window's key, so a Slider's two keys
// live in one slot.
func windowKey(rule, prefix, subject string, idx int64) string {
	var buf [96]byte // on the stack for the usual key: one allocation, the string
	b := append(buf[:0], "rl:{"...)
	b = strconv.AppendInt(b, int64(len(rule)), 10)
	b = append(b, ':')
	b = append(b, rule...)
	b = append(b, ':')
	b = append(b, prefix...)
	b = append(b, subject...)
	b = append(b, "}:"...)
	b = strconv.AppendInt(b, idx, 10)
	return string(b)
}

// floorDiv returns a/b rounded towards minus infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
