package connection

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
)

const (
	// refreshMargin: an access token is refreshed this long before it
	// expires.
	refreshMargin = time.Minute
	// refreshClaim bounds how long one refresh holds its claim, and how
	// long another waits for it.
	refreshClaim = 30 * time.Second
)

// Tokens hands out every call's access token. An expiring OAuth token
// (a grant with expires_in and a single-use refresh_token, the latter
// kept sealed under codehost.RefreshLabel) is refreshed a minute before it
// expires (hostapi.OAuth.Refresh), and a call the host answers 401 with a
// context bound by Call is renewed and asked again once; a second 401 is
// the call's answer. The refresh token is single use, so a refresh is
// single-flight: a mutex per connection in a process, and across replicas
// a claim in the store (ClaimCodehostRefresh, 30 seconds) that one wins
// while the others wait for the pair it stores. A refresh token the host
// refuses marks the connection codehost.StatusReauthorize: verify says
// so, and calls with it answer 403 until the user authorizes again.
type Tokens struct {
	Store codehost.Store
	Box   *secretbox.Keyring
	// OAuth refreshes; nil: tokens are not refreshed.
	OAuth *hostapi.OAuth
	Clock clock.Clock

	locks sync.Map // connection id -> *sync.Mutex
}

// expiring reports whether c's access token expires within refreshMargin.
func (t *Tokens) expiring(c codehost.Connection) bool {
	return !c.ExpiresAt.IsZero() && !t.Clock.Now().Add(refreshMargin).Before(c.ExpiresAt)
}

func (t *Tokens) open(c codehost.Connection) (string, error) {
	b, err := t.Box.Open(c.SealedToken, codehost.TokenLabel(c.ID))
	return string(b), err
}

// Access returns c's access token, refreshed first when it expires
// within refreshMargin; ErrReauthorize when it cannot be.
func (t *Tokens) Access(ctx context.Context, c codehost.Connection) (string, error) {
	if c.Status == codehost.StatusReauthorize {
		return "", hostapi.ErrReauthorize
	}
	if !t.expiring(c) {
		return t.open(c)
	}
	return t.refresh(ctx, c, "")
}

// Call returns what a call to the code host with c needs: ctx bound to c
// (Bind: a 401 renews the token and the call is asked again) and c's
// access token (Access).
func (t *Tokens) Call(ctx context.Context, c codehost.Connection) (context.Context, string, error) {
	tok, err := t.Access(ctx, c)
	return t.Bind(ctx, c), tok, err
}

// Renew returns a new access token for c after the code host refused
// stale (401): refreshed unless another caller did already;
// ErrInvalidToken when c has no refresh token.
func (t *Tokens) Renew(ctx context.Context, c codehost.Connection, stale string) (string, error) {
	return t.refresh(ctx, c, stale)
}

// refresh refreshes c's token unless the stored one is fresh already (not
// expiring, or another than stale when stale is given).
func (t *Tokens) refresh(ctx context.Context, c codehost.Connection, stale string) (string, error) {
	mu, _ := t.locks.LoadOrStore(c.ID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	deadline := time.Now().Add(refreshClaim)
	for {
		cur, err := t.Store.CodehostConnection(ctx, c.OrgID, c.ID)
		if err != nil {
			return "", err
		}
		if cur.Status == codehost.StatusReauthorize {
			return "", hostapi.ErrReauthorize
		}
		tok, err := t.open(cur)
		if err != nil {
			return "", err
		}
		if stale == "" && !t.expiring(cur) || stale != "" && tok != stale {
			return tok, nil
		}
		if cur.SealedRefreshToken == "" || t.OAuth == nil {
			if stale != "" {
				return "", fmt.Errorf("%w: it cannot be refreshed", hostapi.ErrInvalidToken)
			}
			return tok, nil
		}
		now := t.Clock.Now()
		claimed, err := t.Store.ClaimCodehostRefresh(ctx, cur.OrgID, cur.ID, now, now.Add(refreshClaim))
		if err != nil {
			return "", err
		}
		if claimed {
			return t.spend(ctx, cur)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%w: another replica's refresh of the token did not end", hostapi.ErrHostUnavailable)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// spend trades c's refresh token, under the claim, and stores the result:
// the new pair sealed, or StatusReauthorize when the host refuses it.
func (t *Tokens) spend(ctx context.Context, c codehost.Connection) (string, error) {
	// A spent refresh token is single use: the pair is stored even when
	// the caller gives up meanwhile.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*hostapi.CallTimeout)
	defer cancel()
	rt, err := t.Box.Open(c.SealedRefreshToken, codehost.RefreshLabel(c.ID))
	if err != nil {
		return "", err
	}
	g, err := t.OAuth.Refresh(ctx, string(rt))
	if errors.Is(err, hostapi.ErrInvalidToken) {
		c.Status = codehost.StatusReauthorize
		if err := t.Store.UpdateCodehostTokens(ctx, c); err != nil {
			return "", err
		}
		return "", fmt.Errorf("%w (%v)", hostapi.ErrReauthorize, err)
	}
	if err != nil {
		// The claim ends with the pair unchanged: the next caller tries.
		return "", errors.Join(err, t.Store.UpdateCodehostTokens(ctx, c))
	}
	if err := keep(&c, t.Box, g, t.Clock.Now()); err != nil {
		return "", err
	}
	if err := t.Store.UpdateCodehostTokens(ctx, c); err != nil {
		return "", err
	}
	return g.AccessToken, nil
}

// keep seals g's tokens onto c (a refresh token the grant leaves out is
// kept) with their expiry from now, and makes c active.
func keep(c *codehost.Connection, box *secretbox.Keyring, g hostapi.Grant, now time.Time) error {
	var err error
	if c.SealedToken, err = box.Seal([]byte(g.AccessToken), codehost.TokenLabel(c.ID)); err != nil {
		return err
	}
	if g.RefreshToken != "" {
		if c.SealedRefreshToken, err = box.Seal([]byte(g.RefreshToken), codehost.RefreshLabel(c.ID)); err != nil {
			return err
		}
	}
	c.ExpiresAt = time.Time{}
	if g.ExpiresIn > 0 {
		c.ExpiresAt = now.Add(time.Duration(g.ExpiresIn) * time.Second)
	}
	c.Status = codehost.StatusActive
	return nil
}

// ForRequest returns conn's access token for the calls made while
// serving c, refreshed first when it is an expiring OAuth token about to
// expire, and binds c's context to conn (Call: a call the code host
// answers 401 renews the token and is asked again); a connection that
// needs reauthorization answers 403.
func (t *Tokens) ForRequest(c *fiber.Ctx, conn codehost.Connection) (string, error) {
	ctx, tok, err := t.Call(c.UserContext(), conn)
	if err != nil {
		return "", hostapi.RepoAnswer(err, "")
	}
	c.SetUserContext(ctx)
	return tok, nil
}

// Repository returns the caller's tracked repository of the
// repository_id path parameter (404 when missing) and its connection's
// token (ForRequest).
func (t *Tokens) Repository(c *fiber.Ctx) (codehost.Repository, string, error) {
	r, err := codehost.RepositoryParam(c, t.Store)
	if err != nil {
		return r, "", err
	}
	conn, err := t.Store.CodehostConnection(c.UserContext(), r.OrgID, r.ConnectionID)
	if err != nil {
		return r, "", err
	}
	tok, err := t.ForRequest(c, conn)
	return r, tok, err
}

// Bind returns ctx carrying c's renewal (hostapi.WithRenewer): every call
// to the code host made with it that the host answers 401 while c's
// token refreshes is retried once, with the token Renew returns (one
// refresh for all the callers that saw the same token refused:
// single-flight). When the host refuses the refresh token the connection
// becomes StatusReauthorize and the call fails with ErrReauthorize.
func (t *Tokens) Bind(ctx context.Context, c codehost.Connection) context.Context {
	return hostapi.WithRenewer(ctx, renewal{t, c})
}

// renewal is the hostapi.Renewer of one connection's token.
type renewal struct {
	tokens *Tokens
	conn   codehost.Connection
}

// Renewable: only a token with a refresh token renews.
func (r renewal) Renewable() bool { return r.conn.SealedRefreshToken != "" }

// Renew implements hostapi.Renewer.
func (r renewal) Renew(ctx context.Context, stale string) (string, error) {
	return r.tokens.Renew(ctx, r.conn, stale)
}
