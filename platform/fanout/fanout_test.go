package fanout_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/fanout"
	"github.com/vigilhq/vigil/platform/testenv"
)

func TestRedisFanout(t *testing.T) {
	opts, err := redis.ParseURL(testenv.URL(t, testenv.Redis))
	if err != nil {
		t.Fatal(err)
	}
	prefix := "vigil-test:" + uuid.NewString() + ":"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := [2]chan string{make(chan string, 10), make(chan string, 10)}
	for i := range got {
		client := redis.NewClient(opts)
		defer client.Close()
		ready, _ := (&fanout.Redis{Client: client, Prefix: prefix}).Subscribe(ctx, "changes", func(m string) { got[i] <- m })
		<-ready
	}
	pub := redis.NewClient(opts)
	defer pub.Close()
	if err := (&fanout.Redis{Client: pub, Prefix: prefix}).Publish(ctx, "changes", "org-1"); err != nil {
		t.Fatal(err)
	}
	if err := (&fanout.Redis{Client: pub, Prefix: prefix}).Publish(ctx, "other", "org-2"); err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		select {
		case m := <-c:
			if m != "org-1" {
				t.Fatalf("subscriber %d: got %q, want org-1", i, m)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("subscriber %d: got nothing, want org-1", i)
		}
		select {
		case m := <-c:
			t.Fatalf("subscriber %d: got %q from another channel, want nothing", i, m)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
