package app

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/platform/config"
)

// oauthHost is a stand-in for the code host's OAuth token endpoint (POST
// login/oauth/access_token, which is not part of the REST API's
// description): each code it issued is exchanged once, for a token the
// forge accepts with repo and read:org.
type oauthHost struct {
	mu    sync.Mutex
	codes map[string]string // code -> token
	// redirects are the redirect_uri values exchanges sent.
	redirects []string
	srv       *httptest.Server
	// With expiresIn > 0, tokens expire (the platform's expiring user
	// tokens): a code's token in expiresIn seconds, a refreshed one in
	// 8 hours, each with a single-use refresh token (refresh: refresh
	// token -> access token) whose grant revokes the access token it
	// replaces on the forge.
	expiresIn int
	refresh   map[string]string
	refreshes int
	forge     *forge
	// dud makes the access tokens of refresh grants ones the forge
	// refuses.
	dud bool
}

const (
	oauthClient = "Iv1.vigiltest"
	oauthSecret = "oauth-client-secret"
	oauthKey    = "an OAuth state key of more than thirty-two characters"
	oauthReturn = "https://app.example/integrations?tab=codehost"
)

func newOAuthHost(t *testing.T, f *forge) *oauthHost {
	o := &oauthHost{codes: map[string]string{}, refresh: map[string]string{}, forge: f}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/login/oauth/access_token" || r.ParseForm() != nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if r.PostForm.Get("grant_type") == "refresh_token" {
			_ = json.NewEncoder(w).Encode(o.grantRefresh(r.PostForm))
			return
		}
		o.redirects = append(o.redirects, r.PostForm.Get("redirect_uri"))
		tok, ok := o.codes[r.PostForm.Get("code")]
		delete(o.codes, r.PostForm.Get("code"))
		if !ok || r.PostForm.Get("client_id") != oauthClient || r.PostForm.Get("client_secret") != oauthSecret {
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."})
			return
		}
		g := map[string]any{"access_token": tok, "scope": "repo,read:org", "token_type": "bearer"}
		if o.expiresIn > 0 {
			rt := "ghr_" + rand.Text()
			o.refresh[rt] = tok
			g["expires_in"], g["refresh_token"], g["refresh_token_expires_in"] = o.expiresIn, rt, 15897600
		}
		_ = json.NewEncoder(w).Encode(g)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// grantRefresh answers a refresh_token grant as the platform does: a new
// access token (8 hours) and a new refresh token; the one spent, and the
// access token it belonged to, no longer work. o.mu is held.
func (o *oauthHost) grantRefresh(form url.Values) map[string]any {
	old, ok := o.refresh[form.Get("refresh_token")]
	if !ok || form.Get("client_id") != oauthClient || form.Get("client_secret") != oauthSecret {
		return map[string]any{"error": "bad_refresh_token", "error_description": "The refresh token passed is incorrect or expired."}
	}
	delete(o.refresh, form.Get("refresh_token"))
	o.refreshes++
	tok, rt := "ghu_"+rand.Text(), "ghr_"+rand.Text()
	o.refresh[rt] = tok
	o.forge.set(old, "")
	if !o.dud {
		o.forge.set(tok, "repo, read:org")
	}
	return map[string]any{"access_token": tok, "expires_in": 28800, "refresh_token": rt, "refresh_token_expires_in": 15897600,
		"scope": "repo,read:org", "token_type": "bearer"}
}

// code issues a code whose token the forge accepts with scopes.
func (o *oauthHost) code(f *forge, scopes string) (code, token string) {
	code, token = rand.Text(), "gho_"+rand.Text()
	f.set(token, scopes)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.codes[code] = token
	return code, token
}

func (o *oauthHost) config(f *forge) func(*config.Config) {
	return func(c *config.Config) {
		f.config(c)
		c.CodehostOAuth = config.CodehostOAuth{URL: o.srv.URL + "/", ClientID: oauthClient, ClientSecret: oauthSecret,
			StateKey: oauthKey, ReturnURL: oauthReturn}
	}
}

// noFollow sends a GET with token as bearer and returns the answer as
// is, a redirect not followed.
func (s *server) noFollow(path, token string) response {
	s.t.Helper()
	req, err := http.NewRequest("GET", s.base+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	r := response{status: res.StatusCode, header: res.Header}
	_ = json.NewDecoder(res.Body).Decode(&r.body)
	return r
}

// authorizeState starts an authorization as token and returns the state
// the code host was sent.
func (s *server) authorizeState(t *testing.T, o *oauthHost, token string) string {
	t.Helper()
	r := s.noFollow("/codehost/oauth/authorize", token)
	if r.status != http.StatusFound {
		t.Fatalf("authorize: got %d %v, want 302", r.status, r.body)
	}
	to, err := url.Parse(r.header.Get("Location"))
	if err != nil || !strings.HasPrefix(to.String(), o.srv.URL+"/login/oauth/authorize?") {
		t.Fatalf("authorize: got Location %q, want the code host's authorization page", r.header.Get("Location"))
	}
	q := to.Query()
	if q.Get("client_id") != oauthClient || q.Get("scope") != "repo read:org" ||
		!strings.HasSuffix(q.Get("redirect_uri"), connection.CallbackPath) || q.Get("state") == "" {
		t.Fatalf("authorize: got query %v, want client_id, scope repo read:org, the callback and a state", q)
	}
	return q.Get("state")
}

func callbackPath(code, state string) string {
	return "/codehost/oauth/callback?" + url.Values{"code": {code}, "state": {state}}.Encode()
}

// TestCodehostOAuth: authorize sends the browser to the code host with a
// signed state; the callback with its code, reached as a browser returns
// from the code host (no bearer token), stores an oauth connection (token
// sealed) in the organization of the user the state was issued to and
// sends the browser to the front end. A state that was changed, has
// expired or was used already is refused (422 naming state), and so is a
// code the host refuses (422 naming code); an API key cannot connect an
// account.
func TestCodehostOAuth(t *testing.T) {
	f := newForge(t)
	o := newOAuthHost(t, f)
	eachBackend(t, o.config(f), func(t *testing.T, s *server) {
		admin := s.admin()
		state := s.authorizeState(t, o, admin)
		code, token := o.code(f, "repo, read:org")
		r := s.noFollow(callbackPath(code, state), "") // the browser has no bearer token
		back, err := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusFound || err != nil || !strings.HasPrefix(back.String(), oauthReturn+"&") || back.Query().Get("connection_id") == "" {
			t.Fatalf("callback: got %d to %q, want 302 to the front end with connection_id", r.status, r.header.Get("Location"))
		}
		list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200)
		if len(list.list) != 1 || strings.Contains(string(list.raw), token) {
			t.Fatalf("got %s, want one connection without its token", list.raw)
		}
		conn := list.list[0].(map[string]any)
		if conn["id"] != back.Query().Get("connection_id") || conn["auth_type"] != "oauth" || conn["codehost_username"] != "octo" ||
			len(conn["scopes"].([]any)) != 2 {
			t.Errorf("got %v, want octo's oauth connection with its two scopes", conn)
		}
		for _, row := range storeRows(t, s) {
			if strings.Contains(row, token) {
				t.Fatalf("the store holds the OAuth token in plaintext: %s", row)
			}
		}
		if v := s.do("POST", "/codehost/connections/"+conn["id"].(string)+"/verify", admin, nil).want(t, 200); v.at("valid") != true {
			t.Errorf("verify: got %s, want valid", v.raw)
		}
		o.mu.Lock()
		if sent := o.redirects[len(o.redirects)-1]; sent != strings.TrimSuffix(s.base, "/api/v1")+connection.CallbackPath {
			t.Errorf("the exchange sent redirect_uri %q, want the callback's", sent)
		}
		o.mu.Unlock()

		refused := func(what, path, token, field, says string) {
			t.Helper()
			r := s.do("GET", path, token, nil)
			if r.status != 422 || !strings.Contains(r.str("error.details."+field), says) {
				t.Errorf("%s: got %d %s, want 422 naming %s (%q)", what, r.status, r.raw, field, says)
			}
		}
		fresh, _ := o.code(f, "repo, read:org")
		refused("replayed state", callbackPath(fresh, state), admin, "state", "used already")
		tampered := []byte(s.authorizeState(t, o, admin))
		tampered[3] ^= 1
		refused("tampered state", callbackPath(fresh, string(tampered)), admin, "state", "does not verify")
		forged := connection.SignState([]byte("another key of at least thirty-two characters"), connection.NewOAuthState("o", "u", time.Now()))
		refused("state signed with another key", callbackPath(fresh, forged), admin, "state", "does not verify")
		me := s.do("GET", "/auth/me", admin, nil).want(t, 200)
		expired := codehost.OAuthState{Nonce: rand.Text(), OrgID: me.str("user.organization_id"), UserID: me.str("user.id"),
			ExpiresAt: time.Now().Add(-time.Second)}
		refused("expired state", callbackPath(fresh, connection.SignState([]byte(oauthKey), expired)), admin, "state", "expired")
		refused("unknown code", callbackPath("not-a-code", s.authorizeState(t, o, admin)), admin, "code", "refuses this code")
		narrow, _ := o.code(f, "repo")
		refused("scopes lacking", callbackPath(narrow, s.authorizeState(t, o, admin)), admin, "code", "read:org")
		refused("no state", "/codehost/oauth/callback?code="+fresh, admin, "state", "required")
		if n := len(s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list); n != 1 {
			t.Errorf("got %d connections after the refused callbacks, want still 1", n)
		}
		// A state issued in another organization connects that organization,
		// whoever's browser brings it back.
		otherAdmin := s.signUp("oauthelsewhere")
		elsewhere, _ := o.code(f, "repo, read:org")
		s.noFollow(callbackPath(elsewhere, s.authorizeState(t, o, otherAdmin)), admin).want(t, http.StatusFound)
		if n := len(s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list); n != 1 {
			t.Errorf("got %d connections in the first organization, want still 1", n)
		}
		if n := len(s.do("GET", "/codehost/connections", otherAdmin, nil).want(t, 200).list); n != 1 {
			t.Errorf("got %d connections in the organization the state was issued in, want 1", n)
		}
		key, _ := s.key(admin, "integrations:write")
		s.do("GET", "/codehost/oauth/authorize", key, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		viewer := s.user(admin, "vera", "viewer")
		s.do("GET", "/codehost/oauth/authorize", viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
}

// TestCodehostOAuthOff: without an OAuth application configured, both
// routes answer 409.
func TestCodehostOAuthOff(t *testing.T) {
	s := start(t, testConfig(t))
	admin := s.admin()
	s.do("GET", "/codehost/oauth/authorize", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
	s.do("GET", "/codehost/oauth/callback?code=x&state=y", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
}

// TestCodehostOAuthRefresh: an OAuth connection with the platform's
// expiring user tokens keeps its refresh token sealed; a token about to
// expire is refreshed before the call, once for eight concurrent callers
// (the refresh token is single use: a second refresh would be refused and
// the connection lost); a token the host refuses early (401) is refreshed
// and the call asked again; a refresh token the host refuses marks the
// connection reauthorization_required, on the connections list and
// verify, and its calls answer 403.
func TestCodehostOAuthRefresh(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	o := newOAuthHost(t, f)
	o.expiresIn = 30 // within the refresh margin: the first call refreshes
	eachBackend(t, o.config(f), func(t *testing.T, s *server) {
		admin := s.admin()
		code, token := o.code(f, "repo, read:org")
		s.noFollow(callbackPath(code, s.authorizeState(t, o, admin)), admin).want(t, http.StatusFound)
		conn := s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list[0].(map[string]any)
		id := conn["id"].(string)
		if at, err := time.Parse(time.RFC3339, conn["token_expires_at"].(string)); err != nil || time.Until(at) > time.Minute {
			t.Fatalf("got %v, want token_expires_at within a minute", conn)
		}
		o.mu.Lock()
		before := o.refreshes
		o.mu.Unlock()

		verify := func() response { return s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200) }
		var wg sync.WaitGroup
		answers := make([]response, 8)
		for i := range answers {
			wg.Go(func() { answers[i] = verify() })
		}
		wg.Wait()
		for i, a := range answers {
			if a.at("valid") != true || a.str("status") != "active" {
				t.Errorf("caller %d: got %s, want valid with the refreshed token", i, a.raw)
			}
		}
		o.mu.Lock()
		refreshes := o.refreshes - before
		var current string
		for _, tok := range o.refresh {
			current = tok
		}
		o.mu.Unlock()
		if refreshes != 1 {
			t.Fatalf("got %d refreshes for eight concurrent callers, want 1", refreshes)
		}
		conn = s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list[0].(map[string]any)
		if at, err := time.Parse(time.RFC3339, conn["token_expires_at"].(string)); err != nil || time.Until(at) < 7*time.Hour {
			t.Errorf("got %v, want the refreshed token's 8 hours", conn)
		}
		for _, row := range storeRows(t, s) {
			for _, secret := range []string{token, current} {
				if strings.Contains(row, secret) {
					t.Fatalf("the store holds a token in plaintext: %s", row)
				}
			}
		}

		// The host refuses the token early (401): refreshed, asked again.
		f.set(current, "")
		if v := verify(); v.at("valid") != true {
			t.Errorf("after a 401: got %s, want valid once refreshed", v.raw)
		}
		o.mu.Lock()
		if o.refreshes-before != 2 {
			t.Errorf("got %d refreshes, want 2 (one on the 401)", o.refreshes-before)
		}
		// The user revokes the authorization: neither token works.
		for rt, tok := range o.refresh {
			delete(o.refresh, rt)
			f.set(tok, "")
		}
		o.mu.Unlock()
		if v := verify(); v.at("valid") != false || v.str("status") != "reauthorization_required" {
			t.Errorf("revoked: got %s, want invalid, reauthorization_required", v.raw)
		}
		if c := s.do("GET", "/codehost/connections", admin, nil).want(t, 200).list[0].(map[string]any); c["status"] != "reauthorization_required" {
			t.Errorf("got %v, want status reauthorization_required", c)
		}
		s.do("GET", "/codehost/connections/"+id+"/repositories", admin, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
}
