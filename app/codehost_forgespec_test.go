package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	stdmaps "maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/vigilhq/vigil/platform/testenv"
)

// githubSpec is GitHub's published OpenAPI description (@octokit/openapi,
// installed by engines.sh), loaded once per test binary: it is 13 MB.
var githubSpec struct {
	once sync.Once
	doc  *openapi3.T
	err  error
}

// githubDescription returns the description, loading it the first time.
func githubDescription(t testing.TB) *openapi3.T {
	t.Helper()
	path := testenv.URL(t, testenv.GitHubOpenAPI)
	githubSpec.once.Do(func() {
		githubSpec.doc, githubSpec.err = openapi3.NewLoader().LoadFromFile(path)
	})
	if githubSpec.err != nil {
		t.Fatalf("loading GitHub's OpenAPI description %s: %v", path, githubSpec.err)
	}
	return githubSpec.doc
}

// githubOperations returns a router over the description's operations
// served at base (the fake forge's URL).
func githubOperations(t testing.TB, doc openapi3.T, base string) routers.Router {
	doc.Servers = openapi3.Servers{{URL: base}}
	r, err := gorillamux.NewRouter(&doc)
	if err != nil {
		t.Errorf("routing GitHub's OpenAPI description: %v", err)
	}
	return r
}

// anyOperation are the answers GitHub gives to any operation, whether or
// not the operation lists them: bad credentials (401), a spent rate limit
// (403 or 429 with the rate-limit headers) and a server error (5xx).
func anyOperation(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests || status >= 500
}

// validated wraps the fake forge's handler: every request must be an
// operation of GitHub's description with a method, path, query and body
// it allows, and every answer a status code the operation documents
// (besides anyOperation's) with a body its schema allows; anything else
// fails t, naming the operation. A request that is no operation gets 404.
// The description is loaded here, before the forge serves: loading it takes
// seconds, longer than a client waits on a busy machine.
func validated(t testing.TB, base func() string, h http.Handler) http.Handler {
	doc := githubDescription(t)
	var once sync.Once
	var router routers.Router
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true,
		IncludeResponseStatus: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { router = githubOperations(t, *doc, base()) })
		if router == nil {
			http.Error(w, `{"message":"no description"}`, http.StatusInternalServerError)
			return
		}
		req := r.Clone(r.Context())
		req.URL.Scheme, req.URL.Host = "http", r.Host
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Errorf("fake forge: %s %s is no operation of GitHub's OpenAPI description: %v", r.Method, r.URL, err)
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		op := route.Operation.OperationID
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("fake forge: %s %s: GitHub's operation %s does not allow this request: %v", r.Method, r.URL, op, err)
			http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
			return
		}
		r.Body = req.Body
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if !anyOperation(rec.Code) {
			rec.Body = bytes.NewBuffer(documented(t, route.Operation, rec.Code, rec.Body.Bytes()))
			out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: opts}
			out.SetBodyBytes(rec.Body.Bytes())
			if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
				t.Errorf("fake forge: %s %s: the fake's answer %d is not one GitHub's operation %s gives: %v", r.Method, r.URL, rec.Code, op, err)
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = bytes.NewReader(rec.Body.Bytes()).WriteTo(w)
	})
}

// documented completes the fake's JSON answer body with the fields of the
// example GitHub's description gives for the operation's status (the
// fake's own fields win, objects merged field by field, each element of an
// array over the example's first), so that the fake need state only the
// fields the client reads and still answers bodies as complete as
// GitHub's. The example is the operation's, or the first by name of its
// examples of the same kind (object or array). A body that is not a JSON
// object or array is left as it is.
func documented(t testing.TB, op *openapi3.Operation, status int, body []byte) []byte {
	var got any
	if json.Unmarshal(body, &got) != nil {
		return body
	}
	ref := op.Responses.Status(status)
	if ref == nil || ref.Value == nil {
		return body
	}
	mt := ref.Value.Content.Get("application/json")
	if mt == nil {
		return body
	}
	example := mt.Example
	for _, name := range slices.Sorted(stdmaps.Keys(mt.Examples)) {
		if e := mt.Examples[name]; example == nil && e != nil && e.Value != nil && sameKind(e.Value.Value, got) {
			example = e.Value.Value
		}
	}
	out, err := json.Marshal(overlay(example, got))
	if err != nil {
		t.Errorf("fake forge: completing an answer of %s: %v", op.OperationID, err)
		return body
	}
	return out
}

// sameKind tells whether a and b are both objects or both arrays.
func sameKind(a, b any) bool {
	_, ao := a.(map[string]any)
	_, bo := b.(map[string]any)
	_, aa := a.([]any)
	_, ba := b.([]any)
	return ao && bo || aa && ba
}

// overlay returns over laid on base; a field over holds as null is left
// out (the fake's way to drop a field of the example).
func overlay(base, over any) any {
	switch o := over.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			return o
		}
		out := stdmaps.Clone(b)
		for k, v := range o {
			if v == nil {
				delete(out, k)
				continue
			}
			out[k] = overlay(b[k], v)
		}
		return out
	case []any:
		b, ok := base.([]any)
		if !ok || len(b) == 0 {
			return o
		}
		out := make([]any, len(o))
		for i, v := range o {
			out[i] = overlay(b[0], v)
		}
		return out
	}
	return over
}

// failures records what validated reports instead of failing the test.
type failures struct {
	*testing.T
	mu  sync.Mutex
	got []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

// TestForgeValidates: the fake forge's check refuses a request GitHub's
// description does not allow (a wrong type in the body, a missing
// required field, a path that is no operation, a bad query value) and an
// answer with a status the operation does not document, naming the
// operation; a request and answer it allows pass.
func TestForgeValidates(t *testing.T) {
	rec := &failures{T: t}
	status := http.StatusCreated
	var srv *httptest.Server
	srv = httptest.NewServer(validated(rec, func() string { return srv.URL }, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"id": 7, "name": "web", "active": true, "events": ["push"]}`))
	})))
	defer srv.Close()
	f := func(method, path, body string, answer int, want string) {
		t.Helper()
		rec.mu.Lock()
		rec.got, status = nil, answer
		rec.mu.Unlock()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		switch {
		case want == "" && len(rec.got) > 0:
			t.Errorf("%s %s: got %q, want it allowed", method, path, rec.got)
		case want != "" && (len(rec.got) != 1 || !strings.Contains(rec.got[0], want)):
			t.Errorf("%s %s: got %q, want one failure naming %q", method, path, rec.got, want)
		}
	}
	hook := `{"name":"web","active":true,"events":["push"],"config":{"url":"https://vigil.example/api/v1/codehost/webhooks","content_type":"json","insecure_ssl":"0","secret":"s"}}`
	f("POST", "/repos/octo/models/hooks", hook, 201, "")
	f("POST", "/repos/octo/models/hooks", `{"name":"web","active":"yes"}`, 201, "operation repos/create-webhook does not allow")
	f("POST", "/repos/octo/models/check-runs", `{"head_sha":"abc"}`, 201, "operation checks/create does not allow")
	f("GET", "/user/repos?visibility=secret", "", 200, "operation repos/list-for-authenticated-user does not allow")
	f("GET", "/repos/octo/models/no-such-thing", "", 200, "is no operation of GitHub's OpenAPI description")
	f("POST", "/repos/octo/models/hooks", hook, 200, "answer 200 is not one GitHub's operation repos/create-webhook gives")
	f("POST", "/repos/octo/models/hooks", hook, 401, "")
}
