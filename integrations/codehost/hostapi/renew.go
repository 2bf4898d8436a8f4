package hostapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrReauthorize: the connection needs a new authorization (the host
// refused its refresh token). It is an ErrInvalidToken.
var ErrReauthorize = fmt.Errorf("%w: the connection must be authorized again", ErrInvalidToken)

// A Renewer renews the token of one connection after the code host
// refused it (401).
type Renewer interface {
	// Renewable reports whether the token can be renewed at all (it has a
	// refresh token).
	Renewable() bool
	// Renew returns a new token after the host refused stale: refreshed
	// unless another caller did already (single-flight); ErrInvalidToken
	// when it cannot be, ErrReauthorize when the host refused the refresh.
	Renew(ctx context.Context, stale string) (string, error)
}

// renewerKey is the context key of a call's Renewer.
type renewerKey struct{}

// WithRenewer returns ctx carrying r: every call to the code host made
// with it (any Host method) that the host answers 401 while r is
// renewable is retried once, with the token r.Renew returns. The retry's
// answer is the call's, a second 401 included.
func WithRenewer(ctx context.Context, r Renewer) context.Context {
	return context.WithValue(ctx, renewerKey{}, r)
}

// renewing is the transport that retries a call refused with 401 once
// with a renewed token, for calls whose context carries a Renewer
// (WithRenewer).
// It sits below go-github's authentication (which set the Authorization
// header it reads) and above the pacer (the retry is paced too).
type renewing struct{ base http.RoundTripper }

func (r renewing) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.base.RoundTrip(req)
	rn, ok := req.Context().Value(renewerKey{}).(Renewer)
	if err != nil || res.StatusCode != http.StatusUnauthorized || !ok || !rn.Renewable() ||
		req.Body != nil && req.GetBody == nil {
		return res, err
	}
	stale, bearer := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !bearer {
		return res, nil
	}
	tok, err := rn.Renew(req.Context(), stale)
	if errors.Is(err, ErrInvalidToken) && !errors.Is(err, ErrReauthorize) {
		return res, nil // it cannot be refreshed: the 401 stands
	}
	drain(res)
	if err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	again.Header.Set("Authorization", "Bearer "+tok)
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return r.base.RoundTrip(again)
}

// drain reads a little of an answer not used and closes it, so that its
// connection can be reused.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
}

// passThrough returns the errors a transport raised that classify and
// classifyRepo return as they are: a *Busy, ErrReauthorize; nil for
// others.
func passThrough(err error) error {
	var b *Busy
	if errors.As(err, &b) {
		return b
	}
	if errors.Is(err, ErrReauthorize) {
		return err
	}
	return nil
}
