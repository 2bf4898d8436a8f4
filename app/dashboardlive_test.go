package app

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vigilhq/vigil/dashboard"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/config"
)

// liveURL is the dashboard channel's ws:// URL with token.
func (s *server) liveURL(token string) string {
	return "ws" + strings.TrimPrefix(s.base, "http") + "/dashboard/ws?token=" + url.QueryEscape(token)
}

// specLiveURL is liveURL at spec 3's path, outside /api/v1.
func (s *server) specLiveURL(token string) string {
	return strings.Replace(s.liveURL(token), "/api/v1/", "/", 1)
}

// dial opens the live channel with token; the test fails unless it opens.
func (s *server) dial(t *testing.T, token string) *websocket.Conn {
	t.Helper()
	return dialURL(t, s.liveURL(token))
}

// dialURL opens the live channel at u; the test fails unless it opens.
func dialURL(t *testing.T, u string) *websocket.Conn {
	t.Helper()
	conn, res, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("dial the live channel: %v (%v)", err, res)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// next reads the channel's next message, within 10 s.
func next(t *testing.T, conn *websocket.Conn) dashboard.Message {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m dashboard.Message
	if err := conn.ReadJSON(&m); err != nil {
		t.Fatalf("read a live message: %v", err)
	}
	return m
}

// TestDashboardLive (spec 3, events 2): the live channel pushes the
// figures at once and then every interval, so that predictions logged
// meanwhile show up without a request; it is the caller's organization's.
func TestDashboardLive(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.DashboardInterval = 100 * time.Millisecond }, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read", "write")
		model := s.model(key, "live", "1")
		conn := s.dial(t, admin)
		first := next(t, conn)
		if first.Type != "statistics" || first.Sequence != 1 || first.Statistics == nil || first.Statistics.Models.Total != 1 {
			t.Fatalf("got first message %+v, want statistics #1 with one model", first)
		}
		s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": []map[string]any{
			{"input_data": map[string]any{"x": 1}, "output_data": map[string]any{"y": 1}},
			{"input_data": map[string]any{"x": 2}, "output_data": map[string]any{"y": 0}}}}).want(t, 201)
		for seq := first.Sequence; ; {
			m := next(t, conn)
			if m.Sequence != seq+1 {
				t.Fatalf("got sequence %d after %d, want %d", m.Sequence, seq, seq+1)
			}
			seq = m.Sequence
			if m.Type == "statistics" && m.Statistics.Predictions.Total == 2 {
				break
			}
			if seq > 300 {
				t.Fatalf("no push counted the 2 predictions within 300 pushes; last %+v", m)
			}
		}

		// An API key opens it too, for its own organization only.
		other := s.signUp("liveother")
		otherKey, _ := s.key(other, "read")
		if m := next(t, s.dial(t, otherKey)); m.Statistics == nil || m.Statistics.Models.Total != 0 {
			t.Fatalf("another organization's key: got %+v, want its own (empty) figures", m)
		}
	})
}

// TestDashboardLiveSpecPath (issue 41, point 3): spec 3's
// wss://{base_host}/dashboard/ws?token= outside /api/v1 is the same
// channel: the caller's organization's figures, the token checked first.
func TestDashboardLiveSpecPath(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		s.model(admin, "spec-path", "1")
		other := s.signUp("specpathother")
		for token, want := range map[string]int{admin: 1, other: 0} {
			m := next(t, dialURL(t, s.specLiveURL(token)))
			if m.Type != "statistics" || m.Statistics == nil || m.Statistics.Models.Total != want {
				t.Errorf("got %+v, want statistics with %d models", m, want)
			}
		}
		_, res, err := websocket.DefaultDialer.Dial(s.specLiveURL(""), nil)
		if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Errorf("no token: got %v %v, want 401", res, err)
		}
	})
}

// TestDashboardLiveRefuses: the token is checked before the upgrade, with
// the API's envelope, and the channel speaks nothing but WebSocket.
func TestDashboardLiveRefuses(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		s.do("POST", "/roles", admin, map[string]any{"name": "modelsonly", "permissions": []string{"models:read"}}).want(t, 201)
		noDashboard := s.user(admin, "nodash", "modelsonly")
		for _, c := range []struct {
			name, token string
			status      int
			code        string
		}{
			{"no token", "", 401, "AUTHENTICATION_FAILED"},
			{"a forged token", "eyJhbGciOiJIUzI1NiJ9.e30.x", 401, "AUTHENTICATION_FAILED"},
			{"an unknown key", "vgl_live_nope", 401, "AUTHENTICATION_FAILED"},
			{"a role without dashboard:read", noDashboard, 403, "INSUFFICIENT_PERMISSIONS"},
		} {
			_, res, err := websocket.DefaultDialer.Dial(s.liveURL(c.token), nil)
			if err == nil || res == nil || res.StatusCode != c.status {
				t.Errorf("%s: got %v %v, want %d", c.name, res, err, c.status)
				continue
			}
			body, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(body), c.code) {
				t.Errorf("%s: got no %s in the envelope", c.name, c.code)
			}
		}
		// A plain GET with a good token: 400, this is a WebSocket.
		s.do("GET", "/dashboard/ws?token="+url.QueryEscape(admin), "", nil).want(t, http.StatusBadRequest)
	})
}

// TestDashboardLiveTokenEnds: a channel whose token stops being valid gets
// an error message and is closed: 4003 once its API key is revoked, 4001
// once its login token expires.
func TestDashboardLiveTokenEnds(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.DashboardInterval = 100 * time.Millisecond }, func(t *testing.T, s *server) {
		admin := s.admin()
		key, keyID := s.key(admin, "read")
		conn := s.dial(t, key)
		next(t, conn)
		s.do("DELETE", "/api-keys/"+keyID, admin, nil).want(t, 204)
		closedWith(t, conn, dashboard.CloseTokenInvalid, "AUTHENTICATION_FAILED")

		// A login token issued so that it expires a second from now.
		box, err := s.app.masterKey()
		if err != nil {
			t.Fatal(err)
		}
		secret, err := identity.SigningSecret(context.Background(), s.app.store, "", box)
		if err != nil {
			t.Fatal(err)
		}
		me := s.do("GET", "/auth/me", admin, nil).want(t, 200)
		issued := time.Now().Add(-identity.TokenLifetime - identity.TokenLeeway + time.Second)
		short, err := (&identity.Tokens{Secret: secret, Now: func() time.Time { return issued }}).
			Issue(identity.User{ID: me.str("user.id"), OrgID: me.str("user.organization_id")})
		if err != nil {
			t.Fatal(err)
		}
		conn = s.dial(t, short)
		next(t, conn)
		closedWith(t, conn, dashboard.CloseTokenExpired, "TOKEN_EXPIRED")
	})
}

// closedWith reads until the channel closes: the last message must be an
// error with code, and the close code want.
func closedWith(t *testing.T, conn *websocket.Conn, want int, code string) {
	t.Helper()
	var last dashboard.Message
	for range 1000 {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m dashboard.Message
		err := conn.ReadJSON(&m)
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			if ce.Code != want || last.Type != "error" || last.Error == nil || last.Error.Code != code {
				t.Fatalf("got close %d after %+v, want close %d after an error %s", ce.Code, last, want, code)
			}
			return
		}
		if err != nil {
			t.Fatalf("got %v, want the channel closed with %d", err, want)
		}
		last = m
	}
	t.Fatalf("got 1000 messages and no close, want the channel closed with %d", want)
}
