package hostapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestMissing(t *testing.T) {
	f := func(scopes []string, want ...string) {
		t.Helper()
		if got := (Account{Scopes: scopes}).Missing(); !slices.Equal(got, want) {
			t.Errorf("Missing(%v): got %v, want %v", scopes, got, want)
		}
	}
	f([]string{"repo", "read:org"})
	f([]string{"repo", "admin:org"})
	f([]string{"repo", "write:org", "gist"})
	f([]string{"repo"}, "read:org")
	f([]string{"public_repo", "read:org"}, "repo")
	f(nil, "repo", "read:org")
}

// TestAccount: the host's answers map to an account, a refused token, or
// an unavailable host; redirects are not followed and an oversized answer
// is an error, not a truncated account.
func TestAccount(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			w.Header().Set("X-OAuth-Scopes", "repo, read:org")
			_, _ = w.Write([]byte(`{"login":"octo","email":"o@example.com"}`))
		case "Bearer limited":
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"message":"API rate limit exceeded"}`))
		case "Bearer moved":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusFound)
		case "Bearer huge":
			_, _ = w.Write([]byte(`{"login":"` + strings.Repeat("x", maxResponseBody) + `"}`))
		case "Bearer broken":
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
		}
	}))
	defer srv.Close()
	g := &GitHub{BaseURL: srv.URL}
	a, err := g.Account(t.Context(), "good")
	if err != nil || a.Username != "octo" || a.Email != "o@example.com" || !slices.Equal(a.Scopes, []string{"repo", "read:org"}) {
		t.Fatalf("good token: got %+v, %v", a, err)
	}
	for token, want := range map[string]error{"bad": ErrInvalidToken, "limited": ErrHostUnavailable, "moved": ErrHostUnavailable,
		"huge": ErrHostUnavailable, "broken": ErrHostUnavailable} {
		// A GitHub of its own: a spent rate limit holds back later calls.
		if _, err := (&GitHub{BaseURL: srv.URL}).Account(t.Context(), token); !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", token, err, want)
		}
	}
	if _, err := (&GitHub{BaseURL: "ftp://example.com/"}).Account(t.Context(), "good"); err == nil {
		t.Error("an ftp API URL: got no error, want one")
	}
}
