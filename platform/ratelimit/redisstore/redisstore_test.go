package redisstore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
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
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Store {
		client, err := redisstore.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		// A prefix of its own for each subtest and run; cleanup deletes
		// only that prefix's keys.
		prefix := "vigil-test:ratelimit:" + rand.Text() + ":"
		t.Cleanup(func() { deletePrefix(t, client, prefix) })
		return redisstore.New(client, prefix)
	})
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
