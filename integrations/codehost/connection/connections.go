package connection

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves the connection routes: personal access tokens, the OAuth
// flow, verification and disconnection.
type API struct {
	Store codehost.Store
	// Box seals the tokens.
	Box *secretbox.Keyring
	// Host is the code host's REST API.
	Host hostapi.Host
	// OAuth is the code host's OAuth flow; nil when the server has no
	// OAuth application configured (authorize and callback answer 409).
	OAuth *hostapi.OAuth
	// Tokens opens and refreshes the connections' tokens; one for the
	// process, shared with the other code-host APIs.
	Tokens *Tokens
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return append(a.connectionRoutes(), a.oauthRoutes()...)
}

// connectionRoutes are the routes of connections.
func (a *API) connectionRoutes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/codehost/connect/pat", Permission: codehost.PermissionWrite, Handler: a.connectPAT},
		{Method: fiber.MethodGet, Path: "/codehost/connections", Permission: codehost.PermissionRead, Handler: a.connections},
		{Method: fiber.MethodPost, Path: "/codehost/connections/:connection_id/verify", Permission: codehost.PermissionWrite, Handler: a.verify},
		{Method: fiber.MethodDelete, Path: "/codehost/connections/:connection_id", Permission: codehost.PermissionWrite, Handler: a.disconnect},
	}
}

type patRequest struct {
	Token string `json:"personal_access_token"`
}

// A token is checked with the code host (Host.Account, GET /user through
// go-github: 10-second timeout, no redirects followed, at most 5 MiB read)
// before it is stored: one the host refuses, or without the scopes repo
// and read:org, answers 422 naming personal_access_token; a host that
// cannot answer, 503. Verify asks again with the stored token.
func (a *API) connectPAT(c *fiber.Ctx) error {
	var req patRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("personal_access_token", req.Token)
	v.MaxLen("personal_access_token", req.Token, 255)
	if strings.IndexFunc(req.Token, func(r rune) bool { return r < '!' || r > '~' }) >= 0 {
		v.Add("personal_access_token", "must be printable ASCII without spaces, as the code host's tokens are")
	}
	if err := v.Err(); err != nil {
		return err
	}
	acct, err := a.Host.Account(c.UserContext(), req.Token)
	if err != nil {
		return hostapi.Answer(err, "personal_access_token")
	}
	if missing := acct.Missing(); len(missing) > 0 {
		return web.Invalid("personal_access_token", "the token lacks the scopes "+strings.Join(missing, ", ")+
			"; it needs "+strings.Join(hostapi.RequiredScopes, " and "))
	}
	conn := codehost.Connection{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), AuthType: codehost.AuthPAT, Status: codehost.StatusActive,
		Username: acct.Username, Email: acct.Email, Scopes: []string{}, CreatedAt: a.Clock.Now()}
	if conn.SealedToken, err = a.Box.Seal([]byte(req.Token), codehost.TokenLabel(conn.ID)); err != nil {
		return err
	}
	if err := a.Store.CreateCodehostConnection(c.UserContext(), conn); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(conn)
}

func (a *API) connections(c *fiber.Ctx) error {
	cs, err := a.Store.CodehostConnections(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	if cs == nil {
		cs = []codehost.Connection{}
	}
	return c.JSON(cs)
}

type verification struct {
	Valid bool `json:"valid"`
	// Missing names the required scopes the token lacks now.
	Missing []string `json:"missing_scopes"`
	// Status is the connection's: reauthorization_required once the code
	// host refused to refresh its token.
	Status string `json:"status"`
}

// verify asks the code host whether the stored token still works and
// still carries the required scopes.
func (a *API) verify(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	conn, err := codehost.ConnectionParam(c, a.Store)
	if err != nil {
		return err
	}
	refused := verification{Valid: false, Missing: []string{}, Status: codehost.StatusReauthorize}
	ctx, tok, err := a.Tokens.Call(c.UserContext(), conn)
	if errors.Is(err, hostapi.ErrReauthorize) {
		return c.JSON(refused)
	}
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	// A 401 on an OAuth token that refreshes: refreshed, asked again.
	acct, err := a.Host.Account(ctx, tok)
	if errors.Is(err, hostapi.ErrReauthorize) {
		return c.JSON(refused)
	}
	if errors.Is(err, hostapi.ErrInvalidToken) {
		return c.JSON(verification{Valid: false, Missing: []string{}, Status: conn.Status})
	}
	if err != nil {
		return hostapi.Answer(err, "")
	}
	missing := acct.Missing()
	if missing == nil {
		missing = []string{}
	}
	return c.JSON(verification{Valid: len(missing) == 0, Missing: missing, Status: codehost.StatusActive})
}

func (a *API) disconnect(c *fiber.Ctx) error {
	err := a.Store.DeleteCodehostConnection(c.UserContext(), identity.OrgID(c), c.Params("connection_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("connection")
	}
	if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
