package redisstore_test

import (
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/redisstore"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestSlideExact holds the script's decision to ratelimit.Step.Fits on
// counts set directly, large ones and ones at the boundary of the rule
// (prev * (window-elapsed) equal to, or one off, (limit-1-cur) * window),
// where a float64 product would round the wrong way.
func TestSlideExact(t *testing.T) {
	client, err := redisstore.Open(testenv.URL(t, testenv.Redis))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	prefix := "vigil-test:slide:" + rand.Text() + ":"
	t.Cleanup(func() { deletePrefix(t, client, prefix) })
	s := redisstore.New(client, prefix)
	r := mrand.New(mrand.NewPCG(15, 5))
	f := func(i int, prev, cur int64, step ratelimit.Step) {
		t.Helper()
		step.PrevKey, step.CurKey = "{k}:p", "{k}:c"
		set(t, client, prefix+"c:"+step.PrevKey, prev)
		set(t, client, prefix+"c:"+step.CurKey, cur)
		gotPrev, gotCur, counted, err := s.Slide(t.Context(), step)
		if err != nil {
			t.Fatal(err)
		}
		want := step.Fits(prev, cur)
		wantCur := cur
		if want {
			wantCur++
		}
		if counted != want || gotPrev != prev || gotCur != wantCur {
			t.Fatalf("case %d, prev %d cur %d %+v: got (%d, %d, %v), want (%d, %d, %v)",
				i, prev, cur, step, gotPrev, gotCur, counted, prev, wantCur, want)
		}
	}
	const maxWindow = int64(ratelimit.MaxSlide - 1)
	for i := range 300 {
		limit := 1 + r.Int64N(1<<r.IntN(52))
		window := 1 + r.Int64N(min(maxWindow, 1<<r.IntN(53)))
		elapsed := r.Int64N(window)
		cur := r.Int64N(limit + 2)
		room := limit - 1 - cur
		var prev int64
		switch i % 3 {
		case 0: // anywhere
			prev = r.Int64N(limit + 1)
		default: // at the boundary, or one past it
			if room < 0 {
				room = 0
			}
			q := new(big.Int).Mul(big.NewInt(room), big.NewInt(window))
			q.Quo(q, big.NewInt(window-elapsed))
			if !q.IsInt64() || q.Int64() >= ratelimit.MaxSlide {
				continue
			}
			prev = q.Int64() + int64(i%3-1)
		}
		f(i, prev, cur, ratelimit.Step{Limit: limit, Window: time.Duration(window), Elapsed: time.Duration(elapsed)})
	}
	f(-1, 0, 0, ratelimit.Step{Limit: 1, Window: time.Hour})
	f(-2, 5, 0, ratelimit.Step{Limit: 5, Window: time.Hour, Elapsed: time.Hour - 1})
	f(-3, 5, 0, ratelimit.Step{Limit: 6, Window: time.Hour, Elapsed: time.Hour - 1})
}

// set sets key to n, expiring in an hour.
func set(t *testing.T, client redis.UniversalClient, key string, n int64) {
	t.Helper()
	if err := client.Set(t.Context(), key, n, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
}
