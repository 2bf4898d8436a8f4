package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Lockout defaults, used for zero fields.
const (
	DefaultFreeAttempts = 3
	DefaultMaxFailures  = 10
	DefaultBaseDelay    = time.Second
	DefaultMaxDelay     = 15 * time.Minute
	DefaultWindow       = 15 * time.Minute
)

// Lockout protects logins against brute force (NIST SP 800-63B): after
// FreeAttempts failures within Window, every further failure blocks the
// subject for a delay that doubles from BaseDelay up to MaxDelay; the
// MaxFailures-th failure and every later one lock the subject for MaxDelay
// (this wins over FreeAttempts when MaxFailures <= FreeAttempts). Success
// clears the failures.
//
// Failures are counted for Window from the first one, then the count starts
// again. Once locked, each further failure in the same Window locks the
// subject for MaxDelay again, so with the defaults a subject gets about
// MaxFailures attempts per 15 to 16 minutes. NIST SP 800-63B allows at most
// 100 consecutive failed attempts per account: Window 24h with MaxDelay 20m
// allows about 10 + 24h/20m = 82 a day.
//
// Zero (or negative) fields take the defaults above (FreeAttempts 3,
// MaxFailures 10, BaseDelay 1s, MaxDelay 15m, Window 15m), except that a
// negative FreeAttempts makes every failure cost a delay. Store must be set.
// Name tells Lockouts sharing a Store apart, e.g. "password" and "totp"; it
// may be empty.
//
// The caller calls Check before verifying credentials and rejects the
// attempt while it returns a wait, then calls Fail or Succeed.
//
// Choose the subject so that the lockout cannot be turned against the
// account it protects: a subject of the client's address and the username
// (as identity's login does) slows down one client's guesses without
// holding back the account's owner elsewhere. Keep the Store across
// restarts (Redis, or the transactional store) so that restarting the
// server does not hand out fresh attempts.
type Lockout struct {
	Store        Store
	Name         string
	FreeAttempts int
	MaxFailures  int
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	Window       time.Duration
}

// Check returns how long the subject must still wait (0: may try now).
func (l *Lockout) Check(ctx context.Context, subject string) (time.Duration, error) {
	if l.Store == nil {
		return 0, errNoStore
	}
	d, err := l.Store.Blocked(ctx, l.key(subject))
	if err != nil {
		return 0, fmt.Errorf("ratelimit: lockout check: %w", err)
	}
	return d, nil
}

// Fail records a failed attempt and returns the wait it imposes (0 while
// attempts are free). A longer block already in place is kept; Check reports
// the wait in force.
func (l *Lockout) Fail(ctx context.Context, subject string) (time.Duration, error) {
	if l.Store == nil {
		return 0, errNoStore
	}
	key := l.key(subject)
	n, err := l.Store.Incr(ctx, key, orDefault(l.Window, DefaultWindow))
	if err != nil {
		return 0, fmt.Errorf("ratelimit: lockout fail: %w", err)
	}
	d := l.delay(n)
	if d > 0 {
		if err := l.Store.Block(ctx, key, d); err != nil {
			return 0, fmt.Errorf("ratelimit: lockout fail: %w", err)
		}
	}
	return d, nil
}

// Succeed clears the subject's failures and any block.
func (l *Lockout) Succeed(ctx context.Context, subject string) error {
	if l.Store == nil {
		return errNoStore
	}
	if err := l.Store.Delete(ctx, l.key(subject)); err != nil {
		return fmt.Errorf("ratelimit: lockout succeed: %w", err)
	}
	return nil
}

// delay returns the block imposed by the n-th failure.
func (l *Lockout) delay(n int64) time.Duration {
	maxDelay := orDefault(l.MaxDelay, DefaultMaxDelay)
	if n >= int64(orDefault(l.MaxFailures, DefaultMaxFailures)) {
		return maxDelay
	}
	free := int64(DefaultFreeAttempts)
	if l.FreeAttempts != 0 {
		free = int64(max(0, l.FreeAttempts))
	}
	if n <= free {
		return 0
	}
	d := orDefault(l.BaseDelay, DefaultBaseDelay)
	for i := free + 1; i < n && d < maxDelay; i++ {
		if d > maxDelay/2 {
			return maxDelay
		}
		d *= 2
	}
	return min(d, maxDelay)
}

// key returns the Store key holding the subject's failure count and block.
func (l *Lockout) key(subject string) string {
	return "lockout:" + strconv.Itoa(len(l.Name)) + ":" + l.Name + ":" + subject
}

// orDefault returns v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
