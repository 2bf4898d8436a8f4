package identity

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

var roleNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

type createRoleRequest struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Permissions []string `json:"permissions"`
}

// createRole adds a custom role. Its permissions must be resource:action
// pairs the caller holds; writing API keys and wildcard writes stay with
// the admin role.
func (a *API) createRole(c *fiber.Ctx) error {
	var req createRoleRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	if !roleNamePattern.MatchString(req.Name) {
		v.Add("name", "must be 1-64 lower-case letters, digits, _ or -, starting with a letter or digit")
	}
	v.MaxLen("description", req.Description, 1000)
	if len(req.Permissions) == 0 {
		v.Add("permissions", "must list at least one resource:action permission")
	}
	p := FromCtx(c)
	for _, perm := range req.Permissions {
		switch {
		case !ValidPermission(perm):
			v.Add("permissions", "unknown permission "+perm+"; want resource:action with resource one of "+
				strings.Join(Resources, ", ")+" and action "+strings.Join(Actions, ", "))
		case reservedForAdmin(perm):
			v.Add("permissions", perm+" is reserved for the admin role")
		case !p.Covers(perm):
			return web.Forbidden(perm)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	r := Role{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.OrgID, Name: req.Name, Description: req.Description,
		Permissions: slices.Compact(slices.Sorted(slices.Values(req.Permissions))), CreatedAt: a.Clock.Now()}
	if err := a.Store.CreateRole(c.UserContext(), r); errors.Is(err, store.ErrConflict) {
		return web.Conflict("a role with this name exists")
	} else if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(r)
}

// reservedForAdmin reports permissions no custom role may carry.
func reservedForAdmin(perm string) bool {
	res, act, _ := strings.Cut(perm, ":")
	return (res == "api_keys" && act != "read") || (res == "*" && act != "read")
}

func (a *API) listRoles(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	roles, err := a.Store.Roles(c.UserContext(), OrgID(c))
	if err != nil {
		return err
	}
	items, pg := paginate(roles, page, size)
	return c.JSON(struct {
		Roles []Role `json:"roles"`
		web.Page
	}{orEmpty(items), pg})
}

func (a *API) getRole(c *fiber.Ctx) error {
	r, err := a.Store.Role(c.UserContext(), OrgID(c), c.Params("role_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("role")
	}
	if err != nil {
		return err
	}
	return c.JSON(r)
}

func (a *API) deleteRole(c *fiber.Ctx) error {
	r, err := a.Store.Role(c.UserContext(), OrgID(c), c.Params("role_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("role")
	}
	if err != nil {
		return err
	}
	if r.BuiltIn {
		return web.Conflict("built-in roles cannot be deleted")
	}
	err = a.Store.DeleteRole(c.UserContext(), r.OrgID, r.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("role")
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the role is assigned to users; give them another role first")
	case err != nil:
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
