package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/ratelimit"
)

// postFrom posts body as JSON to path (under /api/v1) from the loopback
// address ip, without a token, and returns the status and Retry-After in
// seconds.
func postFrom(t *testing.T, s *server, ip, path string, body any) (int, int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
	b, _ := json.Marshal(body)
	res, err := client.Post(s.base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s from %s: %v", path, ip, err)
	}
	res.Body.Close()
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	return res.StatusCode, retry
}

// loginFrom posts the admin's login with password from the loopback
// address ip and returns the status and Retry-After in seconds.
func loginFrom(t *testing.T, s *server, ip, password string) (int, int) {
	t.Helper()
	return postFrom(t, s, ip, "/auth/login", map[string]string{"username": "admin", "password": password})
}

// TestLoginLockoutSurvivesRestart: a client that has failed the admin's
// login ten times is held back for the lockout's full delay, on the same
// server and on a new one started on the same store (SQLite, PostgreSQL,
// or Redis when configured), while the admin logging in from another
// address is not held back at all.
func TestLoginLockoutSurvivesRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) config.Config
	}{
		{"sqlite", testConfig},
		{"postgres", func(t *testing.T) config.Config {
			cfg := engineConfig(t)
			cfg.RedisURL = ""
			return cfg
		}},
		{"redis", engineConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			s := start(t, cfg)
			// Ten failures from 127.0.0.1 as login records them: waiting out
			// the growing delays over HTTP would take minutes.
			lockout := &ratelimit.Lockout{Store: s.app.lockouts()}
			for range ratelimit.DefaultMaxFailures {
				if _, err := lockout.Fail(context.Background(), "127.0.0.1 admin"); err != nil {
					t.Fatal(err)
				}
			}
			f := func(s *server, ip string, wantStatus int) {
				t.Helper()
				status, retry := loginFrom(t, s, ip, adminPassword)
				if status != wantStatus {
					t.Fatalf("login from %s: got status %d, want %d", ip, status, wantStatus)
				}
				if status == http.StatusTooManyRequests && retry < 60 {
					t.Fatalf("login from %s: got Retry-After %d, want the lockout's minutes", ip, retry)
				}
			}
			f(s, "127.0.0.1", http.StatusTooManyRequests)
			f(s, "127.0.0.2", http.StatusOK)
			s.shutdown()

			s = start(t, cfg)
			f(s, "127.0.0.1", http.StatusTooManyRequests)
			f(s, "127.0.0.2", http.StatusOK)
		})
	}
}

// TestNoEnumeration: login answers an unknown, a deactivated and a known
// user with a wrong password alike (the unknown one is hashed against a
// dummy); a client that keeps asking for taken usernames is slowed down
// (429 with Retry-After) while other clients register as usual.
func TestNoEnumeration(t *testing.T) {
	s := start(t, testConfig(t))
	admin := s.admin()
	s.user(admin, "gone", "viewer")
	goneID := s.do("GET", "/users?page_size=1000", admin, nil).want(t, 200)
	for _, u := range goneID.body["users"].([]any) {
		if u := u.(map[string]any); u["username"] == "gone" {
			s.do("DELETE", "/users/"+u["id"].(string), admin, nil).want(t, 204)
		}
	}
	answer := func(username string) string {
		t.Helper()
		r := s.do("POST", "/auth/login", "", map[string]any{"username": username, "password": "not the right one at all"})
		r.wantError(t, 401, "AUTHENTICATION_FAILED")
		return fmt.Sprintf("%d %s %v Retry-After=%q", r.status, r.str("error.message"), r.at("error.details"), r.header.Get("Retry-After"))
	}
	known := answer("admin")
	for _, name := range []string{"nobody-here", "gone"} {
		if got := answer(name); got != known {
			t.Errorf("login as %s: got %s, want the answer for a wrong password, %s", name, got, known)
		}
	}

	taken := map[string]any{"username": "admin", "email": "a@example.com", "password": "a fine long passphrase"}
	for i := range 6 {
		status, retry := postFrom(t, s, "127.0.0.1", "/auth/register", taken)
		if status != http.StatusConflict || (i == 5) != (retry > 0) {
			t.Fatalf("attempt %d at a taken name: got %d with Retry-After %d, want 409 with Retry-After only on the 6th", i+1, status, retry)
		}
	}
	free := map[string]any{"username": "dave", "email": "d@example.com", "password": "a fine long passphrase"}
	if status, retry := postFrom(t, s, "127.0.0.1", "/auth/register", free); status != http.StatusTooManyRequests || retry < 1 {
		t.Fatalf("next registration from the probing client: got %d with Retry-After %d, want 429 with Retry-After", status, retry)
	}
	if status, _ := postFrom(t, s, "127.0.0.2", "/auth/register", free); status != http.StatusCreated {
		t.Fatalf("registration from another client: got %d, want 201", status)
	}
}
