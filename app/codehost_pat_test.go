package app

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/config"
)

// forge is a stand-in for the code host's REST API (GET /user, the
// repositories and their hooks): it knows tokens and the scopes each
// carries, the repositories every token sees, and refuses every other
// request. Every request it receives and every answer it gives is checked
// against GitHub's published OpenAPI description (validated). admin lists the repositories on which hooks may be created.
type forge struct {
	mu     sync.Mutex
	tokens map[string]string // token -> X-OAuth-Scopes
	repos  []forgeRepo
	hooks  map[int64]forgeHook
	nextID int64
	// limited makes every call answer the platform's rate-limit 403.
	limited bool
	// calls counts the requests that reached the forge.
	calls int
	// files holds every repository's files by ref (a commit or a tag),
	// path and content; down makes reading them answer 502.
	files map[string]map[string]string
	down  bool
	// protections by branch, check runs and pull request comments (by
	// pull request number) posted to any repository.
	protections map[string]hostapi.Protection
	checkRuns   []map[string]any
	comments    map[int][]forgeComment
	srv         *httptest.Server
}

type forgeRepo struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	Private       bool   `json:"private"`
	DefaultBranch string `json:"default_branch"`
	Owner         struct {
		Login string `json:"login"`
	} `json:"owner"`
	// Source and Parent are null: no forge repository is a fork (GitHub's
	// example of the answer is one).
	Source   *struct{} `json:"source"`
	Language string    `json:"language"`
	Parent   *struct{} `json:"parent"`
	admin    bool
}

type forgeComment struct {
	ID   int64
	Body string
}

type forgeHook struct {
	repo   string
	URL    string
	Secret string
	Events []string
	// ContentType and InsecureSSL as the request set them.
	ContentType, InsecureSSL string
}

func newForge(t *testing.T) *forge {
	f := &forge{tokens: map[string]string{}, hooks: map[int64]forgeHook{}, nextID: 100, files: map[string]map[string]string{},
		protections: map[string]hostapi.Protection{}, comments: map[int][]forgeComment{}}
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, status int, v any) {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		answer(w, 200, map[string]any{"login": "octo", "id": 1, "email": "octo@example.com", "user_view_type": "private"})
	})
	mux.HandleFunc("GET /user/repos", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, per = max(page, 1), cmp.Or(per, 30)
		f.mu.Lock()
		defer f.mu.Unlock()
		lo, hi := min((page-1)*per, len(f.repos)), min(page*per, len(f.repos))
		answer(w, 200, f.repos[lo:hi])
	})
	mux.HandleFunc("GET /repos/{owner}/{name}", func(w http.ResponseWriter, r *http.Request) {
		if repo, ok := f.repo(r); ok {
			answer(w, 200, repo)
			return
		}
		answer(w, 404, map[string]string{"message": "Not Found"})
	})
	mux.HandleFunc("POST /repos/{owner}/{name}/hooks", func(w http.ResponseWriter, r *http.Request) {
		repo, ok := f.repo(r)
		if !ok {
			answer(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		if !repo.admin {
			answer(w, 403, map[string]string{"message": "Must have admin rights to Repository."})
			return
		}
		var req struct {
			Name   string   `json:"name"`
			Events []string `json:"events"`
			Config struct {
				URL         string `json:"url"`
				ContentType string `json:"content_type"`
				InsecureSSL string `json:"insecure_ssl"`
				Secret      string `json:"secret"`
			} `json:"config"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Name != "web" || req.Config.URL == "" {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		f.mu.Lock()
		f.nextID++
		id := f.nextID
		f.hooks[id] = forgeHook{repo: repo.FullName, URL: req.Config.URL, Secret: req.Config.Secret, Events: req.Events,
			ContentType: req.Config.ContentType, InsecureSSL: req.Config.InsecureSSL}
		f.mu.Unlock()
		answer(w, 201, map[string]any{"id": id, "name": "web", "active": true, "events": req.Events})
	})
	mux.HandleFunc("DELETE /repos/{owner}/{name}/hooks/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		f.mu.Lock()
		_, ok := f.hooks[id]
		delete(f.hooks, id)
		f.mu.Unlock()
		if !ok {
			answer(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	// files reads f.files[ref] for the contents and trees of any repository.
	files := func(w http.ResponseWriter, ref string) (map[string]string, bool) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.down {
			answer(w, http.StatusBadGateway, map[string]string{"message": "Server Error"})
			return nil, false
		}
		fs, ok := f.files[ref]
		if !ok {
			answer(w, 404, map[string]string{"message": "No commit found for the ref " + ref})
		}
		return fs, ok
	}
	mux.HandleFunc("GET /repos/{owner}/{name}/contents/{path...}", func(w http.ResponseWriter, r *http.Request) {
		fs, ok := files(w, r.URL.Query().Get("ref"))
		if !ok {
			return
		}
		content, ok := fs[r.PathValue("path")]
		if !ok {
			answer(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		answer(w, 200, map[string]any{"type": "file", "encoding": "base64", "path": r.PathValue("path"),
			"content": base64.StdEncoding.EncodeToString([]byte(content))})
	})
	mux.HandleFunc("GET /repos/{owner}/{name}/git/trees/{ref}", func(w http.ResponseWriter, r *http.Request) {
		fs, ok := files(w, r.PathValue("ref"))
		if !ok {
			return
		}
		var tree []map[string]any
		for p := range fs {
			tree = append(tree, map[string]any{"path": p, "type": "blob", "mode": "100644"})
		}
		answer(w, 200, map[string]any{"sha": r.PathValue("ref"), "tree": tree, "truncated": false})
	})
	mux.HandleFunc("PUT /repos/{owner}/{name}/branches/{branch}/protection", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Checks *struct {
				Strict   bool     `json:"strict"`
				Contexts []string `json:"contexts"`
			} `json:"required_status_checks"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Checks == nil {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		f.mu.Lock()
		f.protections[r.PathValue("branch")] = hostapi.Protection{Branch: r.PathValue("branch"), Strict: req.Checks.Strict, Contexts: req.Checks.Contexts}
		f.mu.Unlock()
		answer(w, 200, map[string]any{"url": r.URL.String()})
	})
	protected := func(w http.ResponseWriter, r *http.Request) (hostapi.Protection, bool) {
		f.mu.Lock()
		p, ok := f.protections[r.PathValue("branch")]
		f.mu.Unlock()
		if !ok {
			answer(w, 404, map[string]string{"message": "Branch not protected"})
		}
		return p, ok
	}
	mux.HandleFunc("GET /repos/{owner}/{name}/branches/{branch}/protection/required_status_checks", func(w http.ResponseWriter, r *http.Request) {
		if p, ok := protected(w, r); ok {
			answer(w, 200, checkPolicy(p))
		}
	})
	mux.HandleFunc("PATCH /repos/{owner}/{name}/branches/{branch}/protection/required_status_checks", func(w http.ResponseWriter, r *http.Request) {
		p, ok := protected(w, r)
		if !ok {
			return
		}
		var req struct {
			Strict   *bool     `json:"strict"`
			Contexts *[]string `json:"contexts"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Contexts == nil {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		p.Contexts = *req.Contexts
		f.mu.Lock()
		f.protections[p.Branch] = p
		f.mu.Unlock()
		answer(w, 200, checkPolicy(p))
	})
	mux.HandleFunc("POST /repos/{owner}/{name}/check-runs", func(w http.ResponseWriter, r *http.Request) {
		var run map[string]any
		if err := json.NewDecoder(r.Body).Decode(&run); err != nil || run["name"] == nil || run["head_sha"] == nil {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		f.mu.Lock()
		f.nextID++
		run["id"] = f.nextID
		f.checkRuns = append(f.checkRuns, run)
		f.mu.Unlock()
		answer(w, 201, run)
	})
	mux.HandleFunc("GET /repos/{owner}/{name}/issues/{number}/comments", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("number"))
		f.mu.Lock()
		cs := slices.Clone(f.comments[n])
		f.mu.Unlock()
		out := []map[string]any{}
		for _, c := range cs {
			out = append(out, map[string]any{"id": c.ID, "body": c.Body})
		}
		answer(w, 200, out)
	})
	mux.HandleFunc("POST /repos/{owner}/{name}/issues/{number}/comments", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("number"))
		var req struct {
			Body string `json:"body"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == "" {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		f.mu.Lock()
		f.nextID++
		c := forgeComment{ID: f.nextID, Body: req.Body}
		f.comments[n] = append(f.comments[n], c)
		f.mu.Unlock()
		answer(w, 201, map[string]any{"id": c.ID, "body": c.Body})
	})
	mux.HandleFunc("PATCH /repos/{owner}/{name}/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		var req struct {
			Body string `json:"body"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == "" {
			answer(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for n, cs := range f.comments {
			for i, c := range cs {
				if c.ID == id {
					f.comments[n][i].Body = req.Body
					w.WriteHeader(200)
					_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "body": req.Body})
					return
				}
			}
		}
		w.WriteHeader(404)
	})
	f.srv = httptest.NewServer(validated(t, func() string { return f.srv.URL }, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls++
		scopes, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		limited := f.limited
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case !ok:
			answer(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		case limited:
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(42*time.Minute).Unix(), 10))
			answer(w, http.StatusForbidden, map[string]string{"message": "API rate limit exceeded"})
		default:
			w.Header().Set("X-OAuth-Scopes", scopes)
			mux.ServeHTTP(w, r)
		}
	})))
	t.Cleanup(f.srv.Close)
	return f
}

// checkPolicy is the answer of the required status checks of p.
func checkPolicy(p hostapi.Protection) map[string]any {
	checks := []map[string]any{}
	for _, c := range p.Contexts {
		checks = append(checks, map[string]any{"context": c, "app_id": nil})
	}
	return map[string]any{"strict": p.Strict, "contexts": p.Contexts, "checks": checks}
}

// repo returns the repository of the request's owner and name.
func (f *forge) repo(r *http.Request) (forgeRepo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, repo := range f.repos {
		if strings.EqualFold(repo.FullName, r.PathValue("owner")+"/"+r.PathValue("name")) {
			return repo, true
		}
	}
	return forgeRepo{}, false
}

// addRepo adds owner/name to what every token sees; admin allows hooks.
func (f *forge) addRepo(owner, name string, private, admin bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	r := forgeRepo{ID: f.nextID, Name: name, FullName: owner + "/" + name, Private: private, DefaultBranch: "main", admin: admin,
		Language: "Python"}
	r.Owner.Login = owner
	f.repos = append(f.repos, r)
}

func (f *forge) set(token, scopes string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if scopes == "" {
		delete(f.tokens, token)
		return
	}
	f.tokens[token] = scopes
}

// TestCodehostPAT: a token the host accepts with repo and read:org
// connects, one it refuses or that lacks a scope does not; the token is
// stored sealed (no table holds it in plaintext); verify follows the
// host's answer; remove deletes the connection.
func TestCodehostPAT(t *testing.T) {
	f := newForge(t)
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin := s.admin()
		token := "ghp_" + rand.Text()
		f.set(token, "repo, read:org, gist")
		f.set("ghp_narrow", "repo")
		r := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token}).want(t, 201)
		id := r.str("id")
		if r.str("auth_type") != "pat" || r.str("status") != "active" || r.str("codehost_username") != "octo" ||
			r.str("codehost_email") != "octo@example.com" || len(r.at("scopes").([]any)) != 0 || r.str("created_at") == "" {
			t.Fatalf("got %s, want an active pat connection of octo with no scopes listed", r.raw)
		}
		if strings.Contains(string(r.raw), token) {
			t.Fatal("the connection's answer holds the token")
		}
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_unknown"}).wantField(t, "personal_access_token")
		narrow := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_narrow"})
		narrow.wantField(t, "personal_access_token")
		if !strings.Contains(string(narrow.raw), "read:org") {
			t.Errorf("got %s, want the missing scope read:org named", narrow.raw)
		}
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{}).wantField(t, "personal_access_token")
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token, "org_id": "x"}).wantField(t, "org_id")

		list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200)
		if len(list.list) != 1 || strings.Contains(string(list.raw), token) {
			t.Fatalf("got %s, want the one connection without its token", list.raw)
		}
		for _, row := range storeRows(t, s) {
			if strings.Contains(row, token) {
				t.Fatalf("the store holds the token in plaintext: %s", row)
			}
		}
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != true {
			t.Errorf("got %s, want valid", v.raw)
		}
		f.set(token, "repo")
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != false ||
			v.at("missing_scopes").([]any)[0] != "read:org" {
			t.Errorf("got %s, want invalid for lacking read:org", v.raw)
		}
		f.set(token, "")
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != false {
			t.Errorf("got %s, want invalid once the host refuses the token", v.raw)
		}
		viewer := s.user(admin, "vic", "viewer")
		s.do("GET", "/codehost/connections", viewer, nil).want(t, 200)
		s.do("DELETE", "/codehost/connections/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/codehost/connections/"+id, admin, nil).want(t, 204)
		s.do("DELETE", "/codehost/connections/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).wantError(t, 404, "NOT_FOUND")
		if list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200); len(list.list) != 0 {
			t.Errorf("got %s, want no connection", list.raw)
		}
	})
}

// TestCodehostHostDown: a host that does not answer makes connect answer
// 503 with Retry-After, storing nothing.
func TestCodehostHostDown(t *testing.T) {
	f := newForge(t)
	f.srv.Close()
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_x"}).wantError(t, 503, "SERVICE_UNAVAILABLE")
		if r.header.Get("Retry-After") == "" {
			t.Error("got no Retry-After, want one")
		}
		if list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200); len(list.list) != 0 {
			t.Errorf("got %s, want no connection", list.raw)
		}
	})
}

// config points the code host at the forge and lets the outbound guard
// reach it on loopback.
func (f *forge) config(c *config.Config) {
	c.CodehostAPIURL = f.srv.URL + "/"
	c.OutboundAllow = append(c.OutboundAllow, "127.0.0.1")
}

// setFiles gives every repository the files at ref.
func (f *forge) setFiles(ref string, files map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[ref] = files
}

// TestCodehostOutboundGuard: a code host on loopback that the operator
// has not allow-listed is never connected to; connect answers 503.
func TestCodehostOutboundGuard(t *testing.T) {
	f := newForge(t)
	f.set("ghp_good", "repo, read:org")
	s := start(t, func() config.Config { c := testConfig(t); c.CodehostAPIURL = f.srv.URL + "/"; return c }())
	s.do("POST", "/codehost/connect/pat", s.admin(), map[string]any{"personal_access_token": "ghp_good"}).wantError(t, 503, "SERVICE_UNAVAILABLE")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls != 0 {
		t.Errorf("the forge saw %d requests, want none", f.calls)
	}
}
