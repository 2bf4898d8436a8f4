package hostapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestRateLimitHonoured: once the host answers that its rate limit is
// spent, calls fail fast with the wait until its reset, without reaching
// the host.
func TestRateLimitHonoured(t *testing.T) {
	var calls atomic.Int32
	reset := time.Now().Add(30 * time.Minute).Unix()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"message":"API rate limit exceeded"}`))
	}))
	defer srv.Close()
	g := &GitHub{BaseURL: srv.URL}
	for i := range 3 {
		_, err := g.Repository(t.Context(), "t", "octo", "models")
		var b *Busy
		if !errors.As(err, &b) || !errors.Is(err, ErrHostUnavailable) || b.Wait < 29*time.Minute || b.Wait > 31*time.Minute {
			t.Fatalf("call %d: got %v, want Busy for about 30 minutes", i, err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("got %d calls to the host, want 1: the others wait for the reset", n)
	}
}

func TestBusyHeaders(t *testing.T) {
	now := time.Unix(1000, 0)
	f := func(h http.Header, want time.Duration, wantOK bool) {
		t.Helper()
		if got, ok := busy(h, now); got != want || ok != wantOK {
			t.Errorf("busy(%v): got %v %v, want %v %v", h, got, ok, want, wantOK)
		}
	}
	f(http.Header{"Retry-After": {"60"}}, time.Minute, true)
	f(http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1100"}}, 100*time.Second, true)
	f(http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"999999999"}}, time.Hour, true)
	f(http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"900"}}, time.Second, true)
	f(http.Header{"X-Ratelimit-Remaining": {"12"}}, 0, false)
}
