package identity

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// touchEvery is how often a key's last_used_at is written at most, per
// process: often enough to be useful, rarely enough to keep writes off the
// hot path.
const touchEvery = time.Minute

// Authenticator turns a request's bearer token, a login JWT or an API key,
// into its Principal, reading the key, user and role from the store or,
// for up to a second, from Cache. Revoking a key or changing a role
// invalidates the cache of the organization at once on this replica and,
// through the cache's Invalidations, on every other; a lost message is
// covered by the cache's one-second lifetime.
type Authenticator struct {
	Store  Store
	Tokens *Tokens
	// Cache, when set, keeps principals briefly; nil reads the store on
	// every request.
	Cache *PrincipalCache
	// Now defaults to time.Now.
	Now func() time.Time

	touched sync.Map // key id -> time.Time of the last write of last_used_at
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Middleware authenticates the request or answers 401.
func (a *Authenticator) Middleware(c *fiber.Ctx) error {
	p, err := a.Authenticate(c)
	if err != nil {
		return err
	}
	SetPrincipal(c, p)
	return c.Next()
}

// Authenticate returns the request's principal or a 401 error.
func (a *Authenticator) Authenticate(c *fiber.Ctx) (*Principal, error) {
	scheme, token, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, web.Unauthenticated("missing bearer token: send Authorization: Bearer <token>")
	}
	if strings.HasPrefix(token, "vgl_") {
		return a.fromKey(c, token)
	}
	return a.fromJWT(c, token)
}

func (a *Authenticator) fromJWT(c *fiber.Ctx, token string) (*Principal, error) {
	orgID, userID, err := a.Tokens.Verify(token)
	switch {
	case errors.Is(err, ErrTokenExpired):
		return nil, web.NewError(http.StatusUnauthorized, web.CodeTokenExpired, "token expired: log in again")
	case err != nil:
		return nil, web.Unauthenticated("invalid token")
	}
	now := a.now()
	ck := "u:" + orgID + ":" + userID
	if e, ok := a.Cache.get(ck, now); ok {
		return e.p, nil
	}
	gen := a.Cache.generation()
	p, err := a.principal(c, orgID, userID)
	if err != nil {
		return nil, err
	}
	a.Cache.put(ck, gen, p, nil, now)
	return p, nil
}

func (a *Authenticator) fromKey(c *fiber.Ctx, raw string) (*Principal, error) {
	if ParseKey(raw) != nil {
		return nil, web.Unauthenticated("invalid API key")
	}
	now := a.now()
	hash := HashKey(raw)
	ck := "k:" + hash
	if e, ok := a.Cache.get(ck, now); ok {
		if e.keyExp != nil && !now.Before(*e.keyExp) {
			return nil, web.NewError(http.StatusUnauthorized, web.CodeTokenExpired, "API key expired")
		}
		a.touch(c, e.p.KeyID, now)
		return e.p, nil
	}
	gen := a.Cache.generation()
	k, err := a.Store.APIKeyByHash(c.UserContext(), hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, web.Unauthenticated("invalid API key")
	case err != nil:
		return nil, err
	}
	if k.RevokedAt != nil {
		return nil, web.Unauthenticated("API key revoked")
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return nil, web.NewError(http.StatusUnauthorized, web.CodeTokenExpired, "API key expired")
	}
	p, err := a.principal(c, k.OrgID, k.UserID)
	if err != nil {
		return nil, err
	}
	p.KeyID, p.Scopes = k.ID, k.Scopes
	a.Cache.put(ck, gen, p, k.ExpiresAt, now)
	a.touch(c, k.ID, now)
	return p, nil
}

// principal loads the user and the permissions of the user's current role.
func (a *Authenticator) principal(c *fiber.Ctx, orgID, userID string) (*Principal, error) {
	ctx := c.UserContext()
	u, err := a.Store.User(ctx, orgID, userID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, web.Unauthenticated("the token's user no longer exists")
	case err != nil:
		return nil, err
	case !u.Active:
		return nil, web.Unauthenticated("user is deactivated")
	}
	r, err := a.Store.RoleByName(ctx, orgID, u.Role)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return &Principal{OrgID: orgID, UserID: u.ID, Username: u.Username, Role: u.Role, Permissions: r.Permissions}, nil
}

// touch records the key's use at most once per touchEvery per process.
func (a *Authenticator) touch(c *fiber.Ctx, id string, now time.Time) {
	if last, ok := a.touched.Load(id); ok && now.Sub(last.(time.Time)) < touchEvery {
		return
	}
	a.touched.Store(id, now)
	// A failed touch costs only the freshness of last_used_at; the
	// request goes on.
	_ = a.Store.TouchAPIKey(c.UserContext(), id, now)
}

// Require answers 403 INSUFFICIENT_PERMISSIONS unless the caller holds
// permission; an empty permission lets any authenticated caller through.
func Require(permission string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if permission != "" && !FromCtx(c).Can(permission) {
			return web.Forbidden(permission)
		}
		return c.Next()
	}
}
