package ratelimit

import (
	"context"
	"sync"
	"time"
)

// minSweep is the least number of operations between two sweeps of a Memory.
const minSweep = 1024

// Memory is an in-process Store; its zero value is ready to use and safe for
// concurrent use. It suits a single replica only: replicas that must share
// quota need a shared Store such as redisstore.Store.
//
// Expired entries are swept without a timer: a sweep runs once the number of
// operations since the last one reaches the number of entries that sweep
// kept (at least minSweep). Its cost is thus amortised to O(1) per operation,
// and since an operation adds at most one entry, a Memory holds at most
// 2*L+minSweep entries, L being the live ones at the last sweep.
// Memory never returns an error.
type Memory struct {
	mu      sync.Mutex
	entries map[string]*memEntry
	ops     int              // operations since the last sweep
	sweepAt int              // ops that trigger the next sweep
	now     func() time.Time // time.Now when nil; set by tests
}

// memEntry is the counter and the block stored under one key. A zero n means
// no counter; zero times mean no expiry (counter) or no block.
type memEntry struct {
	n          int64
	expires    time.Time
	blockedTil time.Time
}

func (e *memEntry) counterLive(now time.Time) bool {
	return e.n != 0 && (e.expires.IsZero() || now.Before(e.expires))
}

func (e *memEntry) blockLive(now time.Time) bool {
	return now.Before(e.blockedTil)
}

// lock locks m and returns the current time, sweeping when one is due.
// The caller unlocks m.mu.
func (m *Memory) lock() time.Time {
	m.mu.Lock()
	now := time.Now()
	if m.now != nil {
		now = m.now()
	}
	if m.entries == nil {
		m.entries = make(map[string]*memEntry)
	}
	m.ops++
	if m.ops >= max(minSweep, m.sweepAt) {
		m.sweep(now)
	}
	return now
}

// sweep drops every entry that holds neither a live counter nor a live block.
func (m *Memory) sweep(now time.Time) {
	for k, e := range m.entries {
		if !e.counterLive(now) && !e.blockLive(now) {
			delete(m.entries, k)
		}
	}
	m.ops = 0
	m.sweepAt = len(m.entries)
}

// Incr implements Store.
func (m *Memory) Incr(_ context.Context, key string, ttl time.Duration) (int64, error) {
	now := m.lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		e = new(memEntry)
		m.entries[key] = e
	}
	if !e.counterLive(now) {
		e.n = 0
		e.expires = time.Time{}
		if ttl > 0 {
			e.expires = now.Add(ttl)
		}
	}
	e.n++
	return e.n, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, key string) (int64, error) {
	now := m.lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil || !e.counterLive(now) {
		return 0, nil
	}
	return e.n, nil
}

// Block implements Store.
func (m *Memory) Block(_ context.Context, key string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	now := m.lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		e = new(memEntry)
		m.entries[key] = e
	}
	if until := now.Add(d); until.After(e.blockedTil) {
		e.blockedTil = until
	}
	return nil
}

// Blocked implements Store.
func (m *Memory) Blocked(_ context.Context, key string) (time.Duration, error) {
	now := m.lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil || !e.blockLive(now) {
		return 0, nil
	}
	return e.blockedTil.Sub(now), nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, keys ...string) error {
	m.lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.entries, k)
	}
	return nil
}
