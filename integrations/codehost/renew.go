package codehost

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
)

// renewalKey is the context key of a call's renewal.
type renewalKey struct{}

// renewal is what a call to the code host needs to renew its token after
// a 401: the connection the token belongs to and the Tokens that refresh
// it.
type renewal struct {
	tokens *Tokens
	conn   Connection
}

// Bind returns ctx carrying c's renewal: every call to the code host made
// with it (any Host method) that the host answers 401 while c's token
// refreshes is retried once, with the token Renew returns (one refresh
// for all the callers that saw the same token refused: single-flight).
// The retry's answer is the call's, a second 401 included. When the host
// refuses the refresh token the connection becomes StatusReauthorize and
// the call fails with ErrReauthorize.
func (t *Tokens) Bind(ctx context.Context, c Connection) context.Context {
	return context.WithValue(ctx, renewalKey{}, renewal{t, c})
}

// renewing is the transport that retries a call refused with 401 once
// with a renewed token, for calls whose context carries a renewal (Bind).
// It sits below go-github's authentication (which set the Authorization
// header it reads) and above the pacer (the retry is paced too).
type renewing struct{ base http.RoundTripper }

func (r renewing) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.base.RoundTrip(req)
	rn, ok := req.Context().Value(renewalKey{}).(renewal)
	if err != nil || res.StatusCode != http.StatusUnauthorized || !ok || rn.conn.SealedRefreshToken == "" ||
		req.Body != nil && req.GetBody == nil {
		return res, err
	}
	stale, bearer := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !bearer {
		return res, nil
	}
	tok, err := rn.tokens.Renew(req.Context(), rn.conn, stale)
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
