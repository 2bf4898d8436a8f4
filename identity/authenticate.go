package identity

import (
	"context"
	"encoding/hex"
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

// touchTimeout bounds the write of last_used_at, which a request waits for.
const touchTimeout = time.Second

// Authenticator turns a request's bearer token, a login JWT or an API key,
// into its Principal, reading the key, user and role from the store or,
// for up to the cache's TTL (a second by default), from Cache. Revoking a
// key or changing a role invalidates the cache of the organization at once
// on this replica and, through the cache's Invalidations, on every other;
// a lost message is covered by the TTL. While the store is unavailable,
// Cache serves principals it read within its StaleIfError bound.
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
	return a.Token(c.UserContext(), token)
}

// Token returns the principal of a login token or an API key given
// outside the Authorization header (the dashboard's WebSocket takes it as
// a query parameter), or a 401 error: TOKEN_EXPIRED once it has expired,
// AUTHENTICATION_FAILED when it is unknown, revoked or its user gone.
// Calling it again on a long-lived connection notices all three.
func (a *Authenticator) Token(ctx context.Context, token string) (*Principal, error) {
	if token == "" {
		return nil, web.Unauthenticated("missing token")
	}
	if strings.HasPrefix(token, "vgl_") {
		return a.fromKey(ctx, token)
	}
	return a.fromJWT(ctx, token)
}

func (a *Authenticator) fromJWT(ctx context.Context, token string) (*Principal, error) {
	orgID, userID, err := a.Tokens.Verify(token)
	switch {
	case errors.Is(err, ErrTokenExpired):
		return nil, web.NewError(http.StatusUnauthorized, web.CodeTokenExpired, "token expired: log in again")
	case err != nil:
		return nil, web.Unauthenticated("invalid token")
	}
	e, err := a.Cache.get(cacheKey{org: orgID, user: userID}, a.now(), func() (cached, error) {
		p, err := a.principal(ctx, orgID, userID)
		return cached{p: p}, err
	})
	return e.p, err
}

func (a *Authenticator) fromKey(ctx context.Context, raw string) (*Principal, error) {
	if ParseKey(raw) != nil {
		return nil, web.Unauthenticated("invalid API key")
	}
	now := a.now()
	// The cache is keyed by the raw digest; its hex form, which the store
	// keeps, is made only on a miss.
	sum := keyDigest(raw)
	e, err := a.Cache.get(cacheKey{digest: sum}, now, func() (cached, error) {
		return a.keyPrincipal(ctx, hex.EncodeToString(sum[:]))
	})
	if err != nil {
		return nil, err
	}
	if e.keyExp != nil && !now.Before(*e.keyExp) {
		return nil, web.NewError(http.StatusUnauthorized, web.CodeTokenExpired, "API key expired")
	}
	a.touch(ctx, e.p.KeyID, now)
	return e.p, nil
}

// keyPrincipal reads the principal of the key with hash from the store:
// 401 for a key it does not know or that is revoked.
func (a *Authenticator) keyPrincipal(ctx context.Context, hash string) (cached, error) {
	k, err := a.Store.APIKeyByHash(ctx, hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return cached{}, web.Unauthenticated("invalid API key")
	case err != nil:
		return cached{}, err
	case k.RevokedAt != nil:
		return cached{}, web.Unauthenticated("API key revoked")
	}
	p, err := a.principal(ctx, k.OrgID, k.UserID)
	if err != nil {
		return cached{}, err
	}
	p.KeyID, p.Scopes = k.ID, k.Scopes
	return cached{p: p, keyExp: k.ExpiresAt}, nil
}

// principal loads the user and the permissions of the user's current role.
func (a *Authenticator) principal(ctx context.Context, orgID, userID string) (*Principal, error) {
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
func (a *Authenticator) touch(ctx context.Context, id string, now time.Time) {
	if last, ok := a.touched.Load(id); ok && now.Sub(last.(time.Time)) < touchEvery {
		return
	}
	a.touched.Store(id, now)
	// A failed touch costs only the freshness of last_used_at; the
	// request goes on, and does not wait long for a store that hangs.
	ctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	_ = a.Store.TouchAPIKey(ctx, id, now)
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
