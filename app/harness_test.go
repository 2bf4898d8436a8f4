package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/dashboard"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/explanation/view"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/export/reportschedule"
	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/integrations/codehost/automation"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/integrations/codehost/tracking"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
	"github.com/vigilhq/vigil/integrations/kserve"
	"github.com/vigilhq/vigil/integrations/workflow"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/pricing"
	"github.com/vigilhq/vigil/query"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/toxicity"
)

// adminPassword is the first admin's password in every test server.
const adminPassword = "correct horse battery"

// server is a Vigil process under test, listening on a loopback port.
type server struct {
	t    *testing.T
	app  *App
	base string
	stop func()
}

// testConfig is the embedded default on a fresh data folder, with
// registration open so that tests can create a second organization.
func testConfig(t *testing.T) config.Config {
	t.Helper()
	cfg, err := config.Parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.MasterKeyFile = filepath.Join(t.TempDir(), "master.key")
	cfg.AdminPassword = adminPassword
	cfg.Registration = config.RegistrationOpen
	// The drift schedule looks at models only in the tests that ask for
	// it (startDrift): a look gives a model without a drift configuration
	// its default alert rule, which tests counting rules do not expect.
	cfg.DriftTick = time.Hour
	return cfg
}

// engineConfig is testConfig on PostgreSQL and Redis: a fresh schema, and
// a Redis key prefix of the test's own, so that no count or lockout leaks
// from one test into another.
func engineConfig(t *testing.T) config.Config {
	t.Helper()
	cfg := testConfig(t)
	cfg.PostgresURL = testenv.PostgresSchema(t)
	cfg.RedisURL = testenv.URL(t, testenv.Redis)
	cfg.RedisPrefix = "vigil-test:" + uuid.NewString() + ":"
	return cfg
}

// start runs a server with cfg until the test ends.
func start(t *testing.T, cfg config.Config) *server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewJSONHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	a, err := New(ctx, cfg, log)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	s := &server{t: t, app: a, base: "http://" + a.Addr() + "/api/v1"}
	s.stop = func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		a.Close()
	}
	t.Cleanup(func() {
		if s.stop != nil {
			s.stop()
		}
	})
	return s
}

// shutdown stops the server now rather than at the end of the test.
func (s *server) shutdown() {
	s.stop()
	s.stop = nil
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// response is what a test inspects of an answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
	list   []any
}

// str returns the string at a dotted path of the JSON object body.
func (r response) str(path string) string {
	v, _ := r.at(path).(string)
	return v
}

func (r response) at(path string) any {
	var v any = r.body
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// do sends a request with token as bearer (none when empty) and body as
// JSON (a string or []byte is sent as is). Paths are under /api/v1, or at
// the root when written root:/path.
func (s *server) do(method, path, token string, body any) response {
	s.t.Helper()
	return s.send(s.request(method, path, token, body))
}

// request is do's request, unsent.
func (s *server) request(method, path, token string, body any) *http.Request {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	url := s.base + path
	if root, ok := strings.CutPrefix(path, "root:"); ok { // operational endpoints: /healthz, /readyz, /metrics
		url = strings.TrimSuffix(s.base, "/api/v1") + root
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// send sends req and reads the answer.
func (s *server) send(req *http.Request) response {
	s.t.Helper()
	return s.sendWith(http.DefaultClient, req)
}

// sendWith sends req through client and reads the answer.
func (s *server) sendWith(client *http.Client, req *http.Request) response {
	s.t.Helper()
	res, err := client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	_ = json.Unmarshal(raw, &r.list)
	return r
}

// post sends a JSON body and returns the status, or the transport error
// when no answer came: for tests that must tell the two apart.
func (s *server) post(path, token string, body any) (int, error) {
	j, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest("POST", s.base+path, bytes.NewReader(j))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode, nil
}

// want fails the test unless r has status.
func (r response) want(t *testing.T, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("got status %d, want %d; body %s", r.status, status, r.raw)
	}
	return r
}

// wantError fails the test unless r is an error envelope with status and
// code, and returns it.
func (r response) wantError(t *testing.T, status int, code string) response {
	t.Helper()
	r.want(t, status)
	if got := r.str("error.code"); got != code {
		t.Fatalf("got code %q, want %q; body %s", got, code, r.raw)
	}
	if r.str("error.request_id") == "" || r.str("error.request_id") != r.header.Get("X-Request-ID") {
		t.Fatalf("got request_id %q and header %q, want the same non-empty id", r.str("error.request_id"), r.header.Get("X-Request-ID"))
	}
	if _, ok := r.at("error.details").(map[string]any); !ok {
		t.Fatalf("got details %v, want an object", r.at("error.details"))
	}
	return r
}

// wantField fails the test unless r is a 422 whose details name field.
func (r response) wantField(t *testing.T, field string) {
	t.Helper()
	r.wantError(t, http.StatusUnprocessableEntity, "VALIDATION_ERROR")
	// Field names may hold dots (reference_data.age): look the key up whole.
	if details, _ := r.at("error.details").(map[string]any); details[field] == nil {
		t.Fatalf("got details %v, want one naming %q", r.at("error.details"), field)
	}
}

// login returns a token for username.
func (s *server) login(username, password string) string {
	s.t.Helper()
	r := s.do("POST", "/auth/login", "", map[string]any{"username": username, "password": password}).want(s.t, 200)
	return r.str("access_token")
}

// admin logs in as the first admin.
func (s *server) admin() string { return s.login("admin", adminPassword) }

// key creates an API key with scopes using token and returns it.
func (s *server) key(token string, scopes ...string) (raw, id string) {
	s.t.Helper()
	r := s.do("POST", "/api-keys", token, map[string]any{"name": "test", "scopes": scopes}).want(s.t, 201)
	return r.str("raw_key"), r.str("id")
}

// signUp registers a new organization through open registration and
// returns its admin's token.
func (s *server) signUp(username string) string {
	s.t.Helper()
	s.do("POST", "/auth/register", "", map[string]any{"username": username, "email": username + "@example.com",
		"password": adminPassword, "full_name": "Org Admin"}).want(s.t, 201)
	return s.login(username, adminPassword)
}

// user creates a user with role in the organization of token and returns
// the user's token.
func (s *server) user(token, username, role string) string {
	s.t.Helper()
	s.do("POST", "/users", token, map[string]any{"username": username, "email": username + "@example.com",
		"password": adminPassword, "full_name": username, "role": role}).want(s.t, 201)
	return s.login(username, adminPassword)
}

// model registers a model and returns its id.
func (s *server) model(token, name, version string) string {
	s.t.Helper()
	r := s.do("POST", "/models", token, map[string]any{"name": name, "version": version,
		"model_type": "classification", "framework": "sklearn"}).want(s.t, 201)
	return r.str("id")
}

// allRoutes is the REST API's route table, for tests that walk it.
func allRoutes() []web.Route {
	return Routes(&identity.API{}, &registry.API{}, &drift.API{}, &bias.API{}, &ingest.API{}, &query.API{}, &risk.API{}, &trust.API{},
		&workflow.API{}, &connection.API{}, &tracking.API{}, &automation.API{}, &webhook.API{}, &alerts.API{}, &dashboard.API{}, &review.API{}, &artifact.API{}, &explanation.API{}, &serving.API{}, &view.API{}, &export.API{}, &toxicity.API{},
		&share.API{}, &reportschedule.API{}, &delivery.API{}, &pricing.API{}, &kserve.API{})
}
