package telemetry

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
)

// serve runs app on a loopback port until the test ends and returns its
// address.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// exchange sends one request on conn and reads its answer, keeping the
// connection open.
func exchange(t *testing.T, conn net.Conn, r *bufio.Reader, method, path, header string) (int, string) {
	t.Helper()
	if _, err := io.WriteString(conn, method+" "+path+" HTTP/1.1\r\nHost: vigil\r\nContent-Length: 0\r\n"+header+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(r, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// TestMethodsOnOneConnection mixes methods on one route over one
// keep-alive connection, then scrapes: Fiber reuses the buffer its method
// strings point into, and a label kept from it would change under the
// registry's feet, making every later scrape answer 500.
func TestMethodsOnOneConnection(t *testing.T) {
	m := NewMetrics()
	app := web.NewApp(web.Options{Logger: slog.New(slog.DiscardHandler)})
	app.Use(m.Middleware(slog.New(slog.DiscardHandler)))
	ok := func(c *fiber.Ctx) error { return c.SendStatus(http.StatusNoContent) }
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodPatch} {
		app.Add(method, "/drift-config/:model_id", ok)
	}
	app.Get("/metrics", m.Handler(Access{}))
	addr := serve(t, app)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	methods := []string{"GET", "PUT", "GET", "DELETE", "POST", "PATCH", "PUT", "GET"}
	for _, method := range methods {
		if code, _ := exchange(t, conn, r, method, "/drift-config/m-1", ""); code != http.StatusNoContent {
			t.Fatalf("%s: got %d, want 204", method, code)
		}
	}
	for i := 0; i < 2; i++ {
		code, body := exchange(t, conn, r, "GET", "/metrics", "")
		if code != http.StatusOK {
			t.Fatalf("scrape %d: got %d %s, want 200", i, code, body)
		}
		for method, n := range map[string]string{"GET": "3", "PUT": "2", "DELETE": "1", "POST": "1", "PATCH": "1"} {
			want := `vigil_http_requests_total{method="` + method + `",route="/drift-config/:model_id",status="204"} ` + n
			if !strings.Contains(body, want) {
				t.Errorf("scrape %d: got no %s in:\n%s", i, want, body)
			}
		}
	}
}

func TestAccess(t *testing.T) {
	const token = "a-metrics-token-of-some-length"
	f := func(a Access, remote, authorization string, want int) {
		t.Helper()
		got := http.StatusOK
		if err := a.allow(net.ParseIP(remote), authorization); err != nil {
			got = err.Status
		}
		if got != want {
			t.Errorf("%+v from %s with %q: got %d, want %d", a, remote, authorization, got, want)
		}
	}
	// The default: loopback only.
	f(Access{}, "127.0.0.1", "", 200)
	f(Access{}, "::1", "", 200)
	f(Access{}, "192.0.2.7", "", 403)
	f(Access{}, "192.0.2.7", "Bearer anything", 403)
	// A listener of its own.
	f(Access{Open: true}, "192.0.2.7", "", 200)
	// A token: from anywhere, loopback included, only with it.
	for _, remote := range []string{"127.0.0.1", "192.0.2.7"} {
		f(Access{Token: token}, remote, "Bearer "+token, 200)
		f(Access{Token: token}, remote, "bearer "+token, 200)
		f(Access{Token: token}, remote, "", 401)
		f(Access{Token: token}, remote, "Bearer "+token[1:], 401)
		f(Access{Token: token}, remote, "Basic "+token, 401)
		f(Access{Token: token, Open: true}, remote, "Bearer wrong", 401)
	}
}

func TestScrapeWithToken(t *testing.T) {
	const token = "a-metrics-token-of-some-length"
	m := NewMetrics()
	app := web.NewApp(web.Options{Logger: slog.New(slog.DiscardHandler)})
	app.Get("/metrics", m.Handler(Access{Token: token}))
	addr := serve(t, app)
	f := func(authorization string, want int) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case res.StatusCode != want:
			t.Errorf("%q: got %d %s, want %d", authorization, res.StatusCode, body, want)
		case want == 200 && !strings.Contains(string(body), "go_goroutines"):
			t.Errorf("%q: got no go_goroutines in the scrape:\n%s", authorization, body)
		case want == 401 && (res.Header.Get("WWW-Authenticate") == "" || !strings.Contains(string(body), "AUTHENTICATION_FAILED")):
			t.Errorf("%q: got %v %s, want WWW-Authenticate and the error envelope", authorization, res.Header, body)
		}
	}
	f("", 401)
	f("Bearer nope", 401)
	f("Bearer "+token, 200)
}
