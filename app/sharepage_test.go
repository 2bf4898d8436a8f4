package app

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSharePage: a share's share_url opens the recipient's page, outside
// /api/v1: HTML that asks for a passcode, the same bytes for a share that
// exists and for any other slug (it reveals nothing), under a policy that
// runs only its own script and reaches only this server.
func TestSharePage(t *testing.T) {
	s := start(t, testConfig(t))
	root := strings.TrimSuffix(s.base, "/api/v1")
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := http.Get(root + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, page := get("/share/0123456789abcdef")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(page, "passcode") || !strings.Contains(page, "/api/v1/share/") {
		t.Fatalf("got %d %s:\n%s, want the passcode page", res.StatusCode, res.Header.Get("Content-Type"), page)
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'sha256-", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("got Content-Security-Policy %q, want %s", csp, want)
		}
	}
	if _, other := get("/share/another-slug-entirely"); other != page {
		t.Errorf("got different pages for two slugs: the page must not tell one link from another")
	}
}
