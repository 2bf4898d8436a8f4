package identity

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/web"
)

// API serves /auth, /users, /roles and /api-keys.
type API struct {
	Store         Store
	Tokens        *Tokens
	Authenticator *Authenticator
	// Lockout slows down repeated failed logins of one client.
	Lockout *ratelimit.Lockout
	// NameProbes, when set, slows down a client that keeps asking for
	// usernames that are taken (registration, user creation): each such
	// attempt past its free ones costs a growing wait.
	NameProbes *ratelimit.Lockout
	// Registration is config.RegistrationAdmin or config.RegistrationOpen.
	Registration string
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/auth/login", Public: true, Handler: a.login},
		{Method: fiber.MethodPost, Path: "/auth/register", Public: true, Handler: a.register},
		{Method: fiber.MethodGet, Path: "/auth/me", Handler: a.me},

		{Method: fiber.MethodPost, Path: "/users", Permission: "users:write", Handler: a.createUser},
		{Method: fiber.MethodGet, Path: "/users", Permission: "users:read", Handler: a.listUsers},
		{Method: fiber.MethodGet, Path: "/users/:user_id", Permission: "users:read", Handler: a.getUser},
		{Method: fiber.MethodPut, Path: "/users/:user_id/role", Permission: "users:write", Handler: a.setUserRole},
		{Method: fiber.MethodDelete, Path: "/users/:user_id", Permission: "users:write", Handler: a.deactivateUser},

		{Method: fiber.MethodPost, Path: "/roles", Permission: "roles:write", Handler: a.createRole},
		{Method: fiber.MethodGet, Path: "/roles", Permission: "roles:read", Handler: a.listRoles},
		{Method: fiber.MethodGet, Path: "/roles/:role_id", Permission: "roles:read", Handler: a.getRole},
		{Method: fiber.MethodDelete, Path: "/roles/:role_id", Permission: "roles:write", Handler: a.deleteRole},

		{Method: fiber.MethodPost, Path: "/api-keys", Permission: "api_keys:write", Handler: a.createKey},
		{Method: fiber.MethodGet, Path: "/api-keys", Permission: "api_keys:read", Handler: a.listKeys},
		{Method: fiber.MethodGet, Path: "/api-keys/:key_id", Permission: "api_keys:read", Handler: a.getKey},
		{Method: fiber.MethodDelete, Path: "/api-keys/:key_id", Permission: "api_keys:write", Handler: a.revokeKey},
	}
}

// invalidate makes every replica forget the principals of the caller's
// organization after a change to who may do what in it. A failed publish
// is logged: the other replicas then catch up within the cache lifetime.
func (a *API) invalidate(c *fiber.Ctx) {
	if err := a.Authenticator.Cache.Invalidate(c.UserContext(), OrgID(c)); err != nil {
		slog.Warn("principal cache invalidation not published; other replicas catch up within the cache lifetime",
			"request_id", web.RequestID(c), "err", err)
	}
}

// paginate returns page (1-based) of items with the pagination envelope.
func paginate[T any](items []T, page, size int) ([]T, web.Page) {
	p := web.NewPage(int64(len(items)), page, size)
	lo := min((page-1)*size, len(items))
	hi := min(lo+size, len(items))
	return items[lo:hi], p
}
