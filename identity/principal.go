package identity

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Principal is the authenticated caller of a request: a user through a
// login token, or an API key acting with its creator's role narrowed by its
// scopes.
type Principal struct {
	OrgID       string
	UserID      string
	Username    string
	Role        string
	Permissions []string
	// KeyID is set when the caller authenticated with an API key.
	KeyID  string
	Scopes []string
}

// Can reports whether the principal holds permission (resource:action).
func (p *Principal) Can(permission string) bool {
	if p == nil || !anyGrants(p.Permissions, permission) {
		return false
	}
	return p.KeyID == "" || scopeAllows(p.Scopes, permission)
}

// Covers reports whether the principal holds every concrete permission that
// permission stands for (models:* is models:read and models:write), scopes
// of an API key included. Granting a role or permission requires covering
// it, so nobody hands out more than they hold.
func (p *Principal) Covers(permission string) bool {
	res, act, _ := strings.Cut(permission, ":")
	for _, r := range Resources {
		for _, a := range Actions {
			if (res == "*" || res == r) && (act == "*" || act == a) && !p.Can(r+":"+a) {
				return false
			}
		}
	}
	return true
}

type principalKey struct{}

// SetPrincipal attaches p to the request.
func SetPrincipal(c *fiber.Ctx, p *Principal) { c.Locals(principalKey{}, p) }

// FromCtx returns the request's principal; nil on a public route.
func FromCtx(c *fiber.Ctx) *Principal {
	p, _ := c.Locals(principalKey{}).(*Principal)
	return p
}

// OrgID returns the caller's organization. Every read and write of a
// tenant's records goes through it; a caller-supplied org_id never does.
func OrgID(c *fiber.Ctx) string {
	if p := FromCtx(c); p != nil {
		return p.OrgID
	}
	return ""
}
