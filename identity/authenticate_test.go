package identity

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// lookupCounter is a Store that counts key lookups and finds nothing; any
// other method panics through the nil embedded interface.
type lookupCounter struct {
	Store
	lookups int
}

func (s *lookupCounter) APIKeyByHash(context.Context, string) (APIKey, error) {
	s.lookups++
	return APIKey{}, store.ErrNotFound
}

func TestMalformedKeyNeedsNoLookup(t *testing.T) {
	st := &lookupCounter{}
	auth := &Authenticator{Store: st, Tokens: &Tokens{Secret: []byte("0123456789abcdef0123456789abcdef")}}
	app := web.NewApp(web.Options{})
	app.Get("/", auth.Middleware, func(c *fiber.Ctx) error { return c.SendStatus(200) })
	f := func(token string, wantLookups int) {
		t.Helper()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 401 {
			t.Fatalf("got %d for %q, want 401", res.StatusCode, token)
		}
		if st.lookups != wantLookups {
			t.Fatalf("got %d lookups after %q, want %d", st.lookups, token, wantLookups)
		}
	}
	k, _ := NewKey()
	bad := k[:len(k)-1] + "0"
	if bad == k {
		bad = k[:len(k)-1] + "1"
	}
	f(bad, 0)
	f("vgl_live_short", 0)
	f(k, 1) // well-formed: looked up, not found
}
