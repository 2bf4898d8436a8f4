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

func TestNoBody(t *testing.T) {
	app := NewApp(Options{})
	app.Post("/", func(c *fiber.Ctx) error {
		if err := NoBody(c); err != nil {
			return err
		}
		return c.SendStatus(204)
	})
	for body, want := range map[string]int{"": 204, " ": 204, "{}": 204, " { } ": 204, `{"x":1}`: 422, "[]": 400} {
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != want {
			t.Errorf("body %q: got %d, want %d", body, res.StatusCode, want)
		}
	}
}
