package web

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestMountRawBody: a route that reads its raw body gets a body that is
// not JSON untouched; any other route refuses it before its handler.
func TestMountRawBody(t *testing.T) {
	app := NewApp(Options{})
	echo := func(c *fiber.Ctx) error { return c.Send(c.Body()) }
	Mount(app, []Route{
		{Method: fiber.MethodPost, Path: "/raw", RawBody: true, Handler: echo},
		{Method: fiber.MethodPost, Path: "/json", Handler: echo},
	}, nil)
	f := func(path string, want int) {
		t.Helper()
		req := httptest.NewRequest("POST", path, strings.NewReader("Hello, World!"))
		req.Header.Set("Content-Type", "text/plain")
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Errorf("%s: got %d %s, want %d", path, res.StatusCode, body, want)
		}
		if want == 200 && string(body) != "Hello, World!" {
			t.Errorf("%s: got body %q, want the raw body", path, body)
		}
	}
	f("/raw", 200)
	f("/json", 415)
}
