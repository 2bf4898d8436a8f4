package hostapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// renewer is a Renewer that must not be asked to renew.
type renewer struct {
	t         *testing.T
	renewable bool
}

func (r renewer) Renewable() bool { return r.renewable }

func (r renewer) Renew(context.Context, string) (string, error) {
	r.t.Error("Renew called, want the 401 to stand")
	return "", ErrInvalidToken
}

// TestRenewingLeaves401: the renewing transport answers a 401 as it came
// (body intact, no renewal tried) when the call is not bound to a
// connection, when the connection's token does not refresh (a PAT) and
// when the body cannot be sent again.
func TestRenewingLeaves401(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"message":"Bad credentials"}`)
	}))
	defer srv.Close()
	f := func(what string, ctx context.Context, body io.Reader) {
		t.Helper()
		calls = 0
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer old")
		res, err := renewing{http.DefaultTransport}.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "Bad credentials") || calls != 1 {
			t.Errorf("%s: got %d %q after %d calls, want the one 401 as it came", what, res.StatusCode, b, calls)
		}
	}
	f("not bound", context.Background(), nil)
	f("a PAT", WithRenewer(context.Background(), renewer{t, false}), nil)
	f("a body read once", WithRenewer(context.Background(), renewer{t, true}), io.MultiReader(strings.NewReader("{}")))
}

func TestPassThrough(t *testing.T) {
	busy := &Busy{Err: errors.New("spent")}
	for _, c := range []struct {
		err, want error
	}{
		{busy, busy},
		{ErrReauthorize, ErrReauthorize},
		{errors.Join(errors.New("wrapped"), ErrReauthorize), ErrReauthorize},
		{ErrInvalidToken, nil},
		{errors.New("other"), nil},
	} {
		if got := passThrough(c.err); c.want == nil && got != nil || c.want != nil && !errors.Is(got, c.want) {
			t.Errorf("passThrough(%v): got %v, want %v", c.err, got, c.want)
		}
	}
}
