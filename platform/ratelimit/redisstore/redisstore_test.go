package redisstore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/ratelimittest"
	"github.com/vigilhq/vigil/platform/ratelimit/redisstore"
	"github.com/vigilhq/vigil/platform/testenv"
)

func TestStore(t *testing.T) {
	url := testenv.URL(t, testenv.Redis)
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Store { return newStore(t, url) })
}

// newStore returns a Store on the Redis at url under a prefix of its own
// for each subtest and run; cleanup deletes only that prefix's keys.
func newStore(t *testing.T, url string) *redisstore.Store {
	client, err := redisstore.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	prefix := "vigil-test:ratelimit:" + rand.Text() + ":"
	t.Cleanup(func() { deletePrefix(t, client, prefix) })
	return redisstore.New(client, prefix)
}

// deletePrefix deletes every key under prefix, which holds no glob
// metacharacters.
func deletePrefix(t *testing.T, client redis.UniversalClient, prefix string) {
	// t.Context is already canceled when cleanup runs.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := client.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		if err := client.Del(ctx, iter.Val()).Err(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	if err := iter.Err(); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// TestUnavailable checks that errors from an unreachable Redis wrap
// ratelimit.ErrUnavailable. It needs no Redis.
func TestUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens on addr any more
	client := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	s := redisstore.New(client, "p:")
	ctx := t.Context()

	_, incrErr := s.Incr(ctx, "k", time.Second)
	_, getErr := s.Get(ctx, "k")
	_, blockedErr := s.Blocked(ctx, "k")
	for _, tc := range []struct {
		op  string
		err error
	}{
		{"Incr", incrErr},
		{"Get", getErr},
		{"Block", s.Block(ctx, "k", time.Second)},
		{"Blocked", blockedErr},
		{"Delete", s.Delete(ctx, "k")},
	} {
		if !errors.Is(tc.err, ratelimit.ErrUnavailable) {
			t.Errorf("%s: got error %v, want one wrapping ErrUnavailable", tc.op, tc.err)
		}
	}
}

func TestOpen(t *testing.T) {
	f := func(url string, wantErr bool) {
		t.Helper()
		client, err := redisstore.Open(url)
		if got := err != nil; got != wantErr {
			t.Fatalf("Open(%q): got error %v, want error: %v", url, err, wantErr)
		}
		if client != nil {
			client.Close()
		}
	}
	f("redis://127.0.0.1:6379/0", false)
	f("redis://:secret@localhost:6379/2", false)
	f("http://localhost:6379", true)
	f("redis://localhost:6379/notadb", true)
}

// TestFailoverStore runs the Store contract on a Failover over Redis
// (a Slider) and over a Memory (Slide taken as Get, Get and Incr).
func TestFailoverStore(t *testing.T) {
	url := testenv.URL(t, testenv.Redis)
	t.Run("redis", func(t *testing.T) {
		ratelimittest.Run(t, func(t *testing.T) ratelimit.Store {
			return &ratelimit.Failover{Primary: newStore(t, url), Fallback: &ratelimit.Memory{}}
		})
	})
	t.Run("memory", func(t *testing.T) {
		ratelimittest.Run(t, func(t *testing.T) ratelimit.Store {
			return &ratelimit.Failover{Primary: &ratelimit.Memory{}, Fallback: &ratelimit.Memory{}}
		})
	})
}

// TestFailoverOutage points a Failover's Redis at a proxy that stops
// answering (testenv.Proxy's Hang): the first call waits for Redis's read timeout and opens the
// breaker; the calls after it touch no connection (the proxy accepts
// none) and still limit, in process; once the proxy answers again, a
// probe (started by a call after Interval) closes the breaker and the
// counts are Redis's again.
func TestFailoverOutage(t *testing.T) {
	proxy, url := testenv.Proxied(t, testenv.URL(t, testenv.Redis))
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = 300*time.Millisecond, 300*time.Millisecond, -1
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	prefix := "vigil-test:failover:" + rand.Text() + ":"
	t.Cleanup(func() { deletePrefix(t, client, prefix) })

	var clock atomic.Int64 // the Failover's time, moved by the test alone
	clock.Store(time.Now().UnixNano())
	changes := make(chan bool, 4)
	f := &ratelimit.Failover{
		Primary: redisstore.New(client, prefix), Fallback: &ratelimit.Memory{},
		Probe:    func(ctx context.Context) error { return client.Ping(ctx).Err() },
		Interval: time.Minute,
		Now:      func() time.Time { return time.Unix(0, clock.Load()) },
		OnChange: func(up bool, _ error) { changes <- up },
	}
	l := &ratelimit.Limiter{Store: f}
	rule := ratelimit.Rule{Name: "failover", Limit: 3, Window: time.Hour}
	// changed waits for the breaker's next move.
	changed := func() bool {
		t.Helper()
		select {
		case up := <-changes:
			return up
		case <-time.After(30 * time.Second):
			t.Fatal("the breaker did not move within 30s")
			return false
		}
	}
	allow := func(subject string) bool {
		t.Helper()
		d, err := l.Allow(t.Context(), rule, subject)
		if err != nil {
			t.Fatalf("Allow(%s): %v", subject, err)
		}
		return d.Allowed
	}

	// Up: Redis counts.
	if !allow("up") {
		t.Fatal("first request through Redis: got rejected, want allowed")
	}

	// Down: the first call fails over after Redis's timeout.
	proxy.Hang()
	if !allow("down") {
		t.Fatal("first request of the outage: got rejected, want allowed (in process)")
	}
	if changed() {
		t.Fatal("got the breaker closed, want it open")
	}
	dials := proxy.Accepted()
	for i, want := range []bool{true, true, false, false} {
		if got := allow("down"); got != want {
			t.Errorf("request %d of the outage after the first: got allowed %v, want %v", i+2, got, want)
		}
	}
	if got := proxy.Accepted(); got != dials {
		t.Errorf("connections to Redis after the breaker opened: got %d, want none", got-dials)
	}
	if f.Up() {
		t.Error("Up: got true during the outage, want false")
	}

	// Back: a call after Interval probes Redis in the background.
	proxy.Restore()
	clock.Add(int64(2 * time.Minute))
	allow("back")
	if !changed() {
		t.Fatal("got the breaker open after the probe, want it closed")
	}
	for i, want := range []bool{true, true, false} {
		if got := allow("up"); got != want {
			t.Errorf("request %d through Redis again: got allowed %v, want %v", i+2, got, want)
		}
	}
}
