package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// downStore is a Store whose backend is unreachable.
type downStore struct{}

var errDown = fmt.Errorf("%w: connection refused", ratelimit.ErrUnavailable)

func (downStore) Incr(context.Context, string, time.Duration) (int64, error) { return 0, errDown }
func (downStore) Get(context.Context, string) (int64, error)                 { return 0, errDown }
func (downStore) Block(context.Context, string, time.Duration) error         { return errDown }
func (downStore) Blocked(context.Context, string) (time.Duration, error)     { return 0, errDown }
func (downStore) Delete(context.Context, ...string) error                    { return errDown }

func TestErrors(t *testing.T) {
	ctx := t.Context()
	ok := ratelimit.Rule{Name: "r", Limit: 1, Window: time.Minute}
	down := &ratelimit.Limiter{Store: downStore{}}
	lockout := &ratelimit.Lockout{Store: downStore{}}
	f := func(name string, err error, wantUnavailable bool) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: got nil error, want one", name)
		}
		if got := errors.Is(err, ratelimit.ErrUnavailable); got != wantUnavailable {
			t.Fatalf("%s: errors.Is(%v, ErrUnavailable): got %v, want %v", name, err, got, wantUnavailable)
		}
	}
	_, err := down.Allow(ctx, ok, "s")
	f("Allow on a down Store", err, true)
	_, err = lockout.Check(ctx, "s")
	f("Check on a down Store", err, true)
	_, err = lockout.Fail(ctx, "s")
	f("Fail on a down Store", err, true)
	f("Succeed on a down Store", lockout.Succeed(ctx, "s"), true)

	mem := &ratelimit.Limiter{Store: &ratelimit.Memory{}}
	_, err = mem.Allow(ctx, ratelimit.Rule{Name: "r", Window: time.Minute}, "s")
	f("Allow with Limit 0", err, false)
	_, err = mem.Allow(ctx, ratelimit.Rule{Name: "r", Limit: 1}, "s")
	f("Allow with Window 0", err, false)
	_, err = (&ratelimit.Limiter{}).Allow(ctx, ok, "s")
	f("Allow without Store", err, false)
	_, err = (&ratelimit.Lockout{}).Fail(ctx, "s")
	f("Fail without Store", err, false)
}
