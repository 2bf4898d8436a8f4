package codehost

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Permissions of the connection routes.
const (
	PermissionRead  = "integrations:read"
	PermissionWrite = "integrations:write"
)

// StatusActive is the status of a stored connection.
const StatusActive = "active"

// connectionRoutes are the routes of connections.
func (a *API) connectionRoutes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/codehost/connect/pat", Permission: PermissionWrite, Handler: a.connectPAT},
		{Method: fiber.MethodGet, Path: "/codehost/connections", Permission: PermissionRead, Handler: a.connections},
		{Method: fiber.MethodPost, Path: "/codehost/connections/:connection_id/verify", Permission: PermissionWrite, Handler: a.verify},
		{Method: fiber.MethodDelete, Path: "/codehost/connections/:connection_id", Permission: PermissionWrite, Handler: a.disconnect},
	}
}

type patRequest struct {
	Token string `json:"personal_access_token"`
}

// hostError turns the host's errors into answers: a refused token is the
// field's problem, a host that cannot answer a 503.
func hostError(err error, field string) error {
	switch {
	case errors.Is(err, ErrInvalidToken):
		return web.Invalid(field, "the code host refuses this token")
	case errors.Is(err, ErrHostUnavailable):
		return web.Unavailable("the code host did not answer; retry shortly", 30*time.Second, err)
	}
	return err
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
		return hostError(err, "personal_access_token")
	}
	if missing := acct.Missing(); len(missing) > 0 {
		return web.Invalid("personal_access_token", "the token lacks the scopes "+strings.Join(missing, ", ")+
			"; it needs "+strings.Join(RequiredScopes, " and "))
	}
	conn := Connection{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), AuthType: AuthPAT, Status: StatusActive,
		Username: acct.Username, Email: acct.Email, Scopes: []string{}, CreatedAt: a.Clock.Now()}
	if conn.SealedToken, err = a.Box.Seal([]byte(req.Token), TokenLabel(conn.ID)); err != nil {
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
		cs = []Connection{}
	}
	return c.JSON(cs)
}

// connection returns the caller's connection of the connection_id path
// parameter, or the 404 of a missing one.
func (a *API) connection(c *fiber.Ctx) (Connection, error) {
	conn, err := a.Store.CodehostConnection(c.UserContext(), identity.OrgID(c), c.Params("connection_id"))
	if errors.Is(err, store.ErrNotFound) {
		return conn, web.NotFound("connection")
	}
	return conn, err
}

// connectionToken opens the token of the caller's connection of the
// connection_id path parameter.
func (a *API) connectionToken(c *fiber.Ctx) (string, error) {
	conn, err := a.connection(c)
	if err != nil {
		return "", err
	}
	return a.token(c, conn)
}

// token returns the connection's access token, refreshed first when it
// is an expiring OAuth token about to expire, and binds c's context to
// the connection (Tokens.Bind: a call the code host answers 401 renews
// the token and is asked again); a connection that needs reauthorization
// answers 403.
func (a *API) token(c *fiber.Ctx, conn Connection) (string, error) {
	ctx, t, err := a.accessTokens().Call(c.UserContext(), conn)
	if err != nil {
		return "", repoHostError(err, "")
	}
	c.SetUserContext(ctx)
	return t, nil
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
	conn, err := a.connection(c)
	if err != nil {
		return err
	}
	refused := verification{Valid: false, Missing: []string{}, Status: StatusReauthorize}
	ctx, tok, err := a.accessTokens().Call(c.UserContext(), conn)
	if errors.Is(err, ErrReauthorize) {
		return c.JSON(refused)
	}
	if err != nil {
		return repoHostError(err, "")
	}
	// A 401 on an OAuth token that refreshes: refreshed, asked again.
	acct, err := a.Host.Account(ctx, tok)
	if errors.Is(err, ErrReauthorize) {
		return c.JSON(refused)
	}
	if errors.Is(err, ErrInvalidToken) {
		return c.JSON(verification{Valid: false, Missing: []string{}, Status: conn.Status})
	}
	if err != nil {
		return hostError(err, "")
	}
	missing := acct.Missing()
	if missing == nil {
		missing = []string{}
	}
	return c.JSON(verification{Valid: len(missing) == 0, Missing: missing, Status: StatusActive})
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
