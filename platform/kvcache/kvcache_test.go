package kvcache_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/testenv"
)

// run checks a Cache: a missing key, a value read back, a value replaced,
// keys apart.
func run(t *testing.T, c kvcache.Cache) {
	t.Helper()
	ctx := context.Background()
	if _, ok, err := c.Get(ctx, "none"); ok || err != nil {
		t.Fatalf("missing key: got %v, %v, want false, nil", ok, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Set(ctx, "a", []byte("one"), time.Hour))
	must(c.Set(ctx, "b", []byte("two"), time.Hour))
	must(c.Set(ctx, "a", []byte("three"), time.Hour))
	for k, want := range map[string]string{"a": "three", "b": "two"} {
		v, ok, err := c.Get(ctx, k)
		if !ok || err != nil || string(v) != want {
			t.Errorf("Get(%s): got %q, %v, %v, want %q", k, v, ok, err, want)
		}
	}
}

// TestMemory: the contract, expiry by the clock, and the bound (the entry
// that expires first goes).
func TestMemory(t *testing.T) {
	run(t, &kvcache.Memory{})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &kvcache.Memory{Max: 2, Clock: func() time.Time { return now }}
	ctx := context.Background()
	_ = m.Set(ctx, "short", []byte("s"), time.Minute)
	_ = m.Set(ctx, "long", []byte("l"), time.Hour)
	_ = m.Set(ctx, "third", []byte("t"), 2*time.Hour)
	got := func(k string) bool {
		_, ok, _ := m.Get(ctx, k)
		return ok
	}
	if got("short") || !got("long") || !got("third") {
		t.Errorf("past Max: got short %v, long %v, third %v, want false, true, true", got("short"), got("long"), got("third"))
	}
	now = now.Add(time.Hour)
	if got("long") || !got("third") {
		t.Errorf("an hour later: got long %v, third %v, want false, true", got("long"), got("third"))
	}
}

// TestRedis: the contract on the real Redis, keys under the prefix with
// their expiry.
func TestRedis(t *testing.T) {
	opts, err := redis.ParseURL(testenv.URL(t, testenv.Redis))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	defer client.Close()
	prefix := "vigil-test:" + uuid.NewString() + ":"
	run(t, &kvcache.Redis{Client: client, Prefix: prefix})
	ttl, err := client.TTL(context.Background(), prefix+"a").Result()
	if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("TTL of %sa: got %v, %v, want about an hour", prefix, ttl, err)
	}
	c := &kvcache.Redis{Client: client, Prefix: prefix}
	if err := c.Set(context.Background(), "gone", []byte("x"), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, ok, _ := c.Get(context.Background(), "gone"); !ok {
			break
		}
		if i > 1000 {
			t.Fatal(fmt.Sprint("a value kept for 1 ms still there after ", i, " reads"))
		}
	}
}
