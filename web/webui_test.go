package webui

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func serve(t *testing.T) (*Site, *fiber.App) {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	app.Get("/", s.Index)
	app.Get(Prefix+":version/*", s.Asset)
	return s, app
}

func get(t *testing.T, app *fiber.App, path string) (int, map[string]string, string) {
	t.Helper()
	res, err := app.Test(httptest.NewRequest("GET", path, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	h := map[string]string{}
	for _, k := range []string{"Content-Type", "Cache-Control", "Content-Security-Policy", "X-Content-Type-Options"} {
		h[k] = res.Header.Get(k)
	}
	return res.StatusCode, h, string(b)
}

// TestIndex: the page is asked again on every visit, names its assets by
// the version, and carries no inline script or style for the CSP to allow.
func TestIndex(t *testing.T) {
	s, app := serve(t)
	status, h, body := get(t, app, "/")
	if status != 200 || h["Cache-Control"] != "no-cache" || !strings.HasPrefix(h["Content-Type"], "text/html") || h["Content-Security-Policy"] != Policy {
		t.Fatalf("got %d %v, want 200 HTML, no-cache, the policy", status, h)
	}
	if !strings.Contains(body, `src="/ui/`+s.Version+`/js/main.js"`) || strings.Contains(body, "{{assets}}") {
		t.Errorf("got index %s, want its assets under /ui/%s/", body, s.Version)
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(tag, " src=") {
			t.Errorf("the index has an inline script: %s", tag)
		}
	}
	if regexp.MustCompile(`<style|\sstyle=|\son[a-z]+=`).MatchString(body) {
		t.Errorf("the index has an inline style or handler: %s", body)
	}
	for _, want := range []string{"script-src 'self';", "style-src 'self';", "connect-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(Policy, want) || strings.Contains(Policy, "unsafe") {
			t.Errorf("policy %q: want %s and nothing unsafe", Policy, want)
		}
	}
}

// TestAssets: every asset under its version, immutable, with the type a
// module script needs under nosniff; another version or path is 404.
func TestAssets(t *testing.T) {
	s, app := serve(t)
	for path, typ := range map[string]string{"js/main.js": "text/javascript", "js/pages/alerts.js": "text/javascript",
		"app.css": "text/css", "favicon.svg": "image/svg+xml"} {
		status, h, body := get(t, app, Prefix+s.Version+"/"+path)
		if status != 200 || !strings.HasPrefix(h["Content-Type"], typ) || h["Cache-Control"] != immutable ||
			h["X-Content-Type-Options"] != "nosniff" || body == "" {
			t.Errorf("%s: got %d %v, want 200 %s, immutable, nosniff", path, status, h, typ)
		}
	}
	for _, path := range []string{Prefix + "0000000000000000/js/main.js", Prefix + s.Version + "/js/nothing.js",
		Prefix + s.Version + "/index.html", Prefix + s.Version + "/../webui.go"} {
		if status, _, _ := get(t, app, path); status != 404 {
			t.Errorf("%s: got %d, want 404", path, status)
		}
	}
}

// TestNoHTMLFromData: the modules build the DOM from text nodes only:
// none writes markup from a string.
func TestNoHTMLFromData(t *testing.T) {
	s, _ := serve(t)
	for name, a := range s.assets {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(string(a.body), bad) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}
