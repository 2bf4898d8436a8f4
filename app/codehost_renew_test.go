package app

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

const renewSHA = "5f0c6b8e1d2a3b4c5d6e7f8091a2b3c4d5e6f708"

// TestCodehostOAuthRefreshOn401: an OAuth token the code host expires
// early (401) on any call, not only verify, is refreshed once and the call
// asked again with the new token: eight concurrent repository listings
// cost one refresh (single-flight) and all succeed; a webhook setup's POST
// is sent again whole; the delivery processor's calls refresh too; a
// second 401 (the refreshed token refused too) is the answer, after one
// refresh; a refresh token the host refuses marks the connection
// reauthorization_required.
func TestCodehostOAuthRefreshOn401(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	f.setFiles(renewSHA, map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "\x80\x04"})
	o := newOAuthHost(t, f)
	o.expiresIn = 3600 // beyond the refresh margin: only a 401 refreshes
	eachBackend(t, o.config(f), func(t *testing.T, s *server) {
		admin := s.admin()
		code, token := o.code(f, "repo, read:org")
		s.noFollow(callbackPath(code, s.authorizeState(t, o, admin)), admin).want(t, http.StatusFound)
		id := s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list[0].(map[string]any)["id"].(string)
		listing := "/codehost/connections/" + id + "/repositories"
		o.mu.Lock()
		before := o.refreshes
		o.mu.Unlock()
		// refreshed checks how many refreshes there were, and returns the
		// access token of the refresh token outstanding.
		refreshed := func(want int) (current string) {
			t.Helper()
			o.mu.Lock()
			defer o.mu.Unlock()
			if n := o.refreshes - before; n != want {
				t.Fatalf("got %d refreshes, want %d", n, want)
			}
			for _, tok := range o.refresh {
				current = tok
			}
			return current
		}
		status := func() string {
			return s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list[0].(map[string]any)["status"].(string)
		}

		s.do("GET", listing, admin, nil).want(t, 200)
		refreshed(0)
		f.set(token, "") // expired on the host's side, early
		var wg sync.WaitGroup
		answers := make([]response, 8)
		for i := range answers {
			wg.Go(func() { answers[i] = s.do("GET", listing, admin, nil) })
		}
		wg.Wait()
		for i, a := range answers {
			if a.status != 200 || !strings.Contains(string(a.raw), `"octo/models"`) {
				t.Errorf("listing %d: got %d %s, want octo/models listed with the refreshed token", i, a.status, a.raw)
			}
		}
		current := refreshed(1)

		// A call with a body: the hook is created with the refreshed token.
		repo := s.do("POST", "/codehost/repositories/track", admin, map[string]any{"connection_id": id, "owner": "octo", "name": "models"}).want(t, 201)
		f.set(current, "")
		if r := s.do("POST", "/codehost/repositories/"+repo.str("id")+"/webhook", admin, nil).want(t, 200); r.str("webhook_status") != "active" {
			t.Errorf("webhook after a 401: got %s, want active", r.raw)
		}
		f.mu.Lock()
		hooks, secret := 0, "" // the forge's hooks of this repository (the forge serves every backend)
		for _, h := range f.hooks {
			if strings.HasSuffix(h.URL, "repository="+repo.str("id")) && h.Secret != "" && len(h.Events) == 3 {
				hooks, secret = hooks+1, h.Secret
			}
		}
		f.mu.Unlock()
		if hooks != 1 {
			t.Fatalf("got %d hooks of the repository on the forge, want 1 with its secret and events", hooks)
		}
		current = refreshed(2)

		// The delivery processor's calls (tree, .monitor.yml) too.
		f.set(current, "")
		delivery := s.hook(t, repo.str("id"), secret, "push", push("main", renewSHA, "models/churn.pkl", ".monitor.yml"))
		waitFor(t, "the delivery processed", func() bool {
			return outcomes(t, s, admin, repo.str("id"))[delivery]["status"] == "processed"
		})
		if n := len(s.do("GET", "/models/churn/versions", admin, nil).want(t, 200).list); n != 1 {
			t.Errorf("got %d versions of churn, want the one the push registers", n)
		}
		current = refreshed(3)

		// The refreshed token is refused too: that second 401 is the
		// answer, after one refresh; the connection stays active (its
		// refresh token works).
		o.mu.Lock()
		o.dud = true
		o.mu.Unlock()
		f.set(current, "")
		s.do("GET", listing, admin, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		refreshed(4)
		if st := status(); st != "active" {
			t.Errorf("after a second 401: got status %s, want active", st)
		}

		// The user revokes the authorization: the listing's 401 finds the
		// refresh token refused.
		o.mu.Lock()
		o.dud = false
		for rt, tok := range o.refresh {
			delete(o.refresh, rt)
			f.set(tok, "")
		}
		o.mu.Unlock()
		r := s.do("GET", listing, admin, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if !strings.Contains(r.str("error.message"), "authorize the connection again") {
			t.Errorf("revoked: got %s, want to be told to authorize again", r.raw)
		}
		if st := status(); st != "reauthorization_required" {
			t.Errorf("revoked: got status %s, want reauthorization_required", st)
		}
		refreshed(4)
	})
}
