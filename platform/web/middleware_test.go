package web

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestNewRequestID: a UUIDv7 of the time given, each one different.
func TestNewRequestID(t *testing.T) {
	now := time.UnixMilli(1795000000123)
	seen := map[string]bool{}
	for range 1000 {
		var buf [36]byte
		id := string(newRequestID(&buf, now))
		if !uuidV7.MatchString(id) {
			t.Fatalf("got %q, want a UUIDv7", id)
		}
		if ms := strings.ReplaceAll(id[:13], "-", ""); ms != fmt.Sprintf("%012x", now.UnixMilli()) {
			t.Fatalf("got time %s, want %x", ms, now.UnixMilli())
		}
		if seen[id] {
			t.Fatalf("got %q twice", id)
		}
		seen[id] = true
	}
}

func TestValidRequestID(t *testing.T) {
	for id, want := range map[string]bool{
		"req-1.a_B": true, strings.Repeat("a", 64): true,
		"": false, "has space": false, "ü": false, strings.Repeat("a", 65): false, "a/b": false,
	} {
		if got := validRequestID([]byte(id)); got != want {
			t.Errorf("validRequestID(%q): got %v, want %v", id, got, want)
		}
	}
}

// TestDeadlinesShared: the requests of one tick share a context that
// leaves each from d to d+d/16; the next tick has a context of its own.
func TestDeadlinesShared(t *testing.T) {
	const d = 160 * time.Millisecond
	s := &deadlines{d: d}
	t0 := time.Now()
	first := s.context(t0)
	f := func(at time.Duration, wantSame bool) {
		t.Helper()
		ctx := s.context(t0.Add(at))
		if same := ctx == first; same != wantSame {
			t.Errorf("request at +%v: got the first tick's context %v, want %v", at, same, wantSame)
		}
		dl, ok := ctx.Deadline()
		if left := dl.Sub(t0.Add(at)); !ok || left < d || left > d+d/16 {
			t.Errorf("request at +%v: got %v left (deadline %v), want %v to %v", at, left, ok, d, d+d/16)
		}
	}
	f(0, true)
	f(d/16-time.Nanosecond, true)
	f(d/16, false)
	<-first.Done()
	if err := first.Err(); err != context.DeadlineExceeded {
		t.Errorf("shared context after its deadline: got %v, want %v", err, context.DeadlineExceeded)
	}
}

// TestMiddlewareAllocations: the middleware every request passes (the
// security headers, the request id, the deadline, the NUL and query
// checks) allocates nothing, whether the caller sends an id or not.
func TestMiddlewareAllocations(t *testing.T) {
	app := NewApp(Options{})
	var got context.Context
	app.Get("/x", func(c *fiber.Ctx) error {
		got = c.UserContext()
		return c.SendStatus(fiber.StatusNoContent)
	})
	h := app.Handler()
	for _, sent := range []string{"", "req-1"} {
		var fctx fasthttp.RequestCtx
		serve := func() {
			fctx.Request.Reset()
			fctx.Response.Reset()
			fctx.ResetUserValues() // as the server does between requests
			fctx.Request.Header.SetMethod(fiber.MethodGet)
			fctx.Request.SetRequestURI("/x?a=1")
			if sent != "" {
				fctx.Request.Header.Set(requestIDHeader, sent)
			}
			h(&fctx)
		}
		serve()
		if id := string(fctx.Response.Header.Peek(requestIDHeader)); (sent == "" && !uuidV7.MatchString(id)) || (sent != "" && id != sent) {
			t.Errorf("sent id %q: got %q back", sent, id)
		}
		if _, ok := got.Deadline(); !ok {
			t.Errorf("handler's context: got no deadline, want one")
		}
		if n := testing.AllocsPerRun(1000, serve); n != 0 {
			t.Errorf("sent id %q: got %v allocations a request, want 0", sent, n)
		}
	}
}
