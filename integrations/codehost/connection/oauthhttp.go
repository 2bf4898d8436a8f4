package connection

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// oauthRoutes are the routes of the OAuth connection.
//
// GET /codehost/oauth/authorize (a signed-in user; OAuth configured)
// stores a fresh nonce for the caller and answers 302 to the code host's
// authorization page with a state: the nonce, organization, user and
// expiry (10 minutes), HMAC-SHA256-signed with the configured state key.
// GET /codehost/oauth/callback checks the signature (constant time), the
// expiry, that the caller is the user it was issued to, and consumes the
// nonce in one DELETE, so a state works once; then exchanges the code at
// the token endpoint (OAuth.Exchange: the outbound call's limits), checks
// the account's scopes as PAT connect does, stores the token sealed and
// answers 302 to the front end. Every refusal is a 422 naming state,
// code or error.
func (a *API) oauthRoutes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/codehost/oauth/authorize", Permission: codehost.PermissionWrite, Handler: a.authorize},
		// The browser comes back from the code host without the user's
		// bearer token: the signed, single-use state, issued by authorize to
		// a user holding PermissionWrite, is the callback's authority (public
		// to the route guard, limited per client address).
		{Method: fiber.MethodGet, Path: "/codehost/oauth/callback", Public: true, Handler: a.callback},
	}
}

// CallbackPath is the callback's path under the service's base URL.
const CallbackPath = "/api/v1/codehost/oauth/callback"

// oauthUser returns the configured flow and the calling user, or the
// answer when OAuth is not configured (409) or the caller is no user
// (403: an API key connects no account).
func (a *API) oauthUser(c *fiber.Ctx) (*hostapi.OAuth, *identity.Principal, error) {
	if a.OAuth == nil {
		return nil, nil, web.Conflict("OAuth is not configured on this server (VIGIL_CODEHOST_CLIENT_ID); connect with a personal access token")
	}
	p := identity.FromCtx(c)
	if p.UserID == "" || p.KeyID != "" {
		return nil, nil, web.NewError(http.StatusForbidden, web.CodeInsufficientPermissions, "an OAuth connection is made by a signed-in user, not an API key")
	}
	return a.OAuth, p, nil
}

// authorize stores a new state for the caller and sends the browser to
// the code host's authorization page with it.
func (a *API) authorize(c *fiber.Ctx) error {
	o, p, err := a.oauthUser(c)
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	st := NewOAuthState(p.OrgID, p.UserID, now)
	to, err := o.AuthorizeURL(c.BaseURL()+CallbackPath, SignState(o.StateKey, st))
	if err != nil {
		return err
	}
	if err := a.Store.CreateCodehostOAuthState(c.UserContext(), st, now); err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(to, http.StatusFound)
}

// callback checks the state (signature, expiry, then used once),
// exchanges the code, checks the account's scopes, stores the connection
// in the organization of the user the state was issued to, with its token
// sealed, and sends the browser to the front end. It needs no bearer
// token: a browser returning from the code host has none.
func (a *API) callback(c *fiber.Ctx) error {
	o := a.OAuth
	if o == nil {
		return web.Conflict("OAuth is not configured on this server (VIGIL_CODEHOST_CLIENT_ID); connect with a personal access token")
	}
	code, state, denied := c.Query("code"), c.Query("state"), c.Query("error")
	var v web.Problems
	v.Required("state", state)
	v.MaxLen("state", state, 1024)
	if denied == "" {
		v.Required("code", code)
	}
	v.MaxLen("code", code, 512)
	v.MaxLen("error", denied, 200)
	if err := v.Err(); err != nil {
		return err
	}
	now := a.Clock.Now()
	st, err := OpenState(o.StateKey, state, now)
	switch {
	case errors.Is(err, ErrStateExpired):
		return web.Invalid("state", "has expired: authorize again (a state lasts 10 minutes)")
	case err != nil:
		return web.Invalid("state", "does not verify: it was not issued by this server or was changed")
	}
	err = a.Store.ConsumeCodehostOAuthState(c.UserContext(), st, now)
	if errors.Is(err, store.ErrNotFound) {
		return web.Invalid("state", "was used already: authorize again")
	}
	if err != nil {
		return err
	}
	if denied != "" {
		return web.Invalid("error", "the code host did not authorize: "+denied)
	}
	g, err := o.Exchange(c.UserContext(), code, c.BaseURL()+CallbackPath)
	if errors.Is(err, hostapi.ErrInvalidToken) {
		return web.Invalid("code", "the code host refuses this code (wrong, used or expired): authorize again")
	}
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	acct, err := a.Host.Account(c.UserContext(), g.AccessToken)
	if err != nil {
		return hostapi.Answer(err, "code")
	}
	if missing := acct.Missing(); len(missing) > 0 {
		return web.Invalid("code", "the authorization lacks the scopes "+strings.Join(missing, ", ")+"; it needs "+hostapi.OAuthScopes)
	}
	conn := codehost.Connection{ID: uuid.Must(uuid.NewV7()).String(), OrgID: st.OrgID, AuthType: codehost.AuthOAuth, Status: codehost.StatusActive,
		Username: acct.Username, Email: acct.Email, Scopes: acct.Scopes, CreatedAt: now}
	if err := keep(&conn, a.Box, g, now); err != nil {
		return err
	}
	if err := a.Store.CreateCodehostConnection(c.UserContext(), conn); err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(withQuery(o.ReturnURL, "connection_id", conn.ID), http.StatusFound)
}

// withQuery adds name=value to the query of u.
func withQuery(u, name, value string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.Values{name: {value}}.Encode()
}
