package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/ratelimit"
)

// loginFrom posts the admin's login with password from the loopback
// address ip and returns the status and Retry-After in seconds.
func loginFrom(t *testing.T, s *server, ip, password string) (int, int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
	body, _ := json.Marshal(map[string]string{"username": "admin", "password": password})
	res, err := client.Post(s.base+"/auth/login", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("login from %s: %v", ip, err)
	}
	res.Body.Close()
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	return res.StatusCode, retry
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
