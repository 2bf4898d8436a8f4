package identity_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// TestKeyExpiry: a key with an expiry works until then and answers 401
// TOKEN_EXPIRED from that instant on.
func TestKeyExpiry(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	quiet := slogDiscard()
	if err := identity.Bootstrap(ctx, st, "admin", "long enough password", quiet); err != nil {
		t.Fatal(err)
	}
	admin, err := st.UserByUsername(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := identity.NewKey()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := created.Add(24 * time.Hour)
	if err := st.CreateAPIKey(ctx, identity.APIKey{ID: "k1", OrgID: admin.OrgID, UserID: admin.ID, Name: "k",
		Hint: identity.KeyHint(raw), Hash: identity.HashKey(raw), Scopes: []string{"read"}, CreatedAt: created, ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	f := func(now time.Time, wantStatus int, wantCode string) {
		t.Helper()
		auth := &identity.Authenticator{Store: st, Tokens: &identity.Tokens{Secret: make([]byte, 32)}, Now: func() time.Time { return now }}
		app := web.NewApp(web.Options{})
		app.Get("/", auth.Middleware, func(c *fiber.Ctx) error { return c.SendStatus(200) })
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Bearer "+raw)
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != wantStatus {
			t.Fatalf("at %v: got %d, want %d", now, res.StatusCode, wantStatus)
		}
		var env web.Envelope
		if wantCode != "" {
			if err := jsonDecode(res, &env); err != nil || env.Error.Code != wantCode {
				t.Fatalf("at %v: got code %q (%v), want %s", now, env.Error.Code, err, wantCode)
			}
		}
	}
	f(expires.Add(-time.Second), 200, "")
	f(expires, 401, web.CodeTokenExpired)
	f(expires.Add(time.Hour), 401, web.CodeTokenExpired)
}
