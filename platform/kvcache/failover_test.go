package kvcache_test

import (
	"context"
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/breaker"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestFailoverCache: the contract on a Failover over the real Redis, and
// on a zero one over two Memorys.
func TestFailoverCache(t *testing.T) {
	client := redisClient(t, testenv.URL(t, testenv.Redis), nil)
	prefix := "vigil-test:" + uuid.NewString() + ":"
	run(t, &kvcache.Failover{Primary: &kvcache.Redis{Client: client, Prefix: prefix}, Fallback: &kvcache.Memory{}})
	if v, err := client.Get(context.Background(), prefix+"a").Result(); err != nil || v != "three" {
		t.Errorf("Redis's %sa: got %q, %v, want three", prefix, v, err)
	}
	run(t, &kvcache.Failover{Primary: &kvcache.Memory{}, Fallback: &kvcache.Memory{}})
}

// redisClient returns a client of the Redis at url that counts its dials
// in dials (when not nil), with short timeouts and no retries, closed when
// the test ends.
func redisClient(t *testing.T, url string, dials *atomic.Int64) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opts.ReadTimeout, opts.WriteTimeout, opts.DialTimeout, opts.MaxRetries = 300*time.Millisecond, 300*time.Millisecond, time.Second, -1
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials != nil {
			dials.Add(1)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	return client
}

// TestRedisUnavailable: a Redis that cannot be reached (a proxy cut)
// answers errors that wrap breaker.ErrUnavailable.
func TestRedisUnavailable(t *testing.T) {
	proxy, url := testenv.Proxied(t, testenv.URL(t, testenv.Redis))
	proxy.Cut()
	c := &kvcache.Redis{Client: redisClient(t, url, nil), Prefix: "p:"}
	_, _, getErr := c.Get(t.Context(), "k")
	setErr := c.Set(t.Context(), "k", []byte("v"), time.Minute)
	for op, err := range map[string]error{"Get": getErr, "Set": setErr} {
		if !errors.Is(err, breaker.ErrUnavailable) {
			t.Errorf("%s: got error %v, want one wrapping breaker.ErrUnavailable", op, err)
		}
	}
}

// TestFailoverOutage points a Failover's Redis at a proxy that stops
// answering (Hang: it accepts and never answers) or refuses connections
// (Cut). The first call fails over after Redis's timeout or refusal and
// opens the breaker; the calls after it dial no connection and are
// answered in process; once the proxy forwards to the real Redis again, a
// probe (started by a call after Interval) closes the breaker and values
// go to Redis again.
func TestFailoverOutage(t *testing.T) {
	for _, c := range []struct {
		name  string
		down  func(*testenv.Proxy)
		cause error
	}{
		{"hangs", (*testenv.Proxy).Hang, os.ErrDeadlineExceeded},
		{"refuses", (*testenv.Proxy).Cut, syscall.ECONNREFUSED},
	} {
		t.Run(c.name, func(t *testing.T) { outage(t, c.down, c.cause) })
	}
}

// change is one move of the breaker.
type change struct {
	up  bool
	err error
}

// outage is TestFailoverOutage with down taking Redis away, which the
// first call of the outage sees as cause.
func outage(t *testing.T, down func(*testenv.Proxy), cause error) {
	proxy, url := testenv.Proxied(t, testenv.URL(t, testenv.Redis))
	var dials atomic.Int64
	client := redisClient(t, url, &dials)
	prefix := "vigil-test:" + uuid.NewString() + ":"
	var clock atomic.Int64 // the breaker's time, moved by the test alone
	clock.Store(time.Now().UnixNano())
	changes := make(chan change, 4)
	memory := &kvcache.Memory{}
	f := &kvcache.Failover{Primary: &kvcache.Redis{Client: client, Prefix: prefix}, Fallback: memory,
		Breaker: breaker.Breaker{
			Probe:    func(ctx context.Context) error { return client.Ping(ctx).Err() },
			Interval: time.Minute,
			Now:      func() time.Time { return time.Unix(0, clock.Load()) },
			OnChange: func(up bool, err error) { changes <- change{up, err} },
		}}
	changed := func() change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case <-time.After(30 * time.Second):
			t.Fatal("the breaker did not move within 30s")
			return change{}
		}
	}
	get := func(key string) string {
		t.Helper()
		v, _, err := f.Get(t.Context(), key)
		if err != nil {
			t.Fatalf("Get(%s): %v", key, err)
		}
		return string(v)
	}
	set := func(key, v string) {
		t.Helper()
		if err := f.Set(t.Context(), key, []byte(v), time.Hour); err != nil {
			t.Fatalf("Set(%s): %v", key, err)
		}
	}

	// Up: Redis keeps the values.
	set("up", "1")
	if got := get("up"); got != "1" {
		t.Fatalf("Get(up) through Redis: got %q, want 1", got)
	}

	// A caller that gave up opens nothing.
	down(proxy)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := f.Get(cancelled, "up"); err == nil || !f.Up() {
		t.Fatalf("Get with a cancelled context: got %v, up %v, want its error and the breaker closed", err, f.Up())
	}

	// Down: the first call fails over after Redis's timeout or refusal.
	if got := get("up"); got != "" {
		t.Fatalf("first Get of the outage: got %q, want a miss (in process)", got)
	}
	if c := changed(); c.up || f.Up() || !errors.Is(c.err, cause) {
		t.Fatalf("first Get of the outage: got the breaker up %v (%v), want it open by %v", c.up, c.err, cause)
	}
	before := dials.Load()
	set("down", "2")
	if got := get("down"); got != "2" {
		t.Errorf("Get(down) during the outage: got %q, want 2 (in process)", got)
	}
	if v, ok, _ := memory.Get(t.Context(), "down"); !ok || string(v) != "2" {
		t.Errorf("the Memory's down: got %q, %v, want 2", v, ok)
	}
	if got := dials.Load() - before; got != 0 {
		t.Errorf("dials of Redis after the breaker opened: got %d, want 0", got)
	}

	// Back: a call after Interval probes the real Redis in the background.
	proxy.Restore()
	clock.Add(int64(2 * time.Minute))
	get("back")
	if !changed().up || !f.Up() {
		t.Fatal("got the breaker open after the probe, want it closed")
	}
	set("again", "3")
	direct := redisClient(t, testenv.URL(t, testenv.Redis), nil)
	if v, err := direct.Get(t.Context(), prefix+"again").Result(); err != nil || v != "3" {
		t.Errorf("Redis's %sagain: got %q, %v, want 3", prefix, v, err)
	}
	t.Cleanup(func() {
		direct.Del(context.Background(), prefix+"up", prefix+"again")
	})
}
