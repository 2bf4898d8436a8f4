package identity

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

type createUserRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"`
	Password string `json:"password"`
	FullName string `json:"full_name"`
	Role     string `json:"role"`
}

func (a *API) createUser(c *fiber.Ctx) error {
	var req createUserRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if req.Role == "" {
		req.Role = RoleViewer
	}
	if err := a.assignable(c, req.Role); err != nil {
		return err
	}
	now := a.Clock.Now()
	u := User{ID: uuid.Must(uuid.NewV7()).String(), OrgID: OrgID(c), Username: req.Username,
		Email: req.Email, FullName: req.FullName, Role: req.Role, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := a.newUser(c, &u, req.Password); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(u)
}

// assignable checks that role exists in the caller's organization and that
// the caller holds every permission it grants, so nobody hands out more
// than they have.
func (a *API) assignable(c *fiber.Ctx, role string) error {
	r, err := a.Store.RoleByName(c.UserContext(), OrgID(c), role)
	if errors.Is(err, store.ErrNotFound) {
		return web.Invalid("role", "no such role in this organization")
	}
	if err != nil {
		return err
	}
	p := FromCtx(c)
	for _, perm := range r.Permissions {
		if !p.Covers(perm) {
			return web.Forbidden(perm)
		}
	}
	return nil
}

func (a *API) listUsers(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	users, total, err := a.Store.Users(c.UserContext(), OrgID(c), (page-1)*size, size)
	if err != nil {
		return err
	}
	return c.JSON(struct {
		Users []User `json:"users"`
		web.Page
	}{orEmpty(users), web.NewPage(total, page, size)})
}

func (a *API) getUser(c *fiber.Ctx) error {
	u, err := a.Store.User(c.UserContext(), OrgID(c), c.Params("user_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("user")
	}
	if err != nil {
		return err
	}
	return c.JSON(u)
}

func (a *API) setUserRole(c *fiber.Ctx) error {
	var req struct {
		Role string `json:"role"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if req.Role == "" {
		return web.Invalid("role", "is required")
	}
	if _, err := a.Store.User(c.UserContext(), OrgID(c), c.Params("user_id")); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("user")
	} else if err != nil {
		return err
	}
	if err := a.assignable(c, req.Role); err != nil {
		return err
	}
	u, err := a.Store.SetUserRole(c.UserContext(), OrgID(c), c.Params("user_id"), req.Role, a.Clock.Now())
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("user")
	}
	if errors.Is(err, store.ErrConflict) {
		return web.Conflict("the organization's last admin stays an active admin; make another user admin first")
	}
	if err != nil {
		return err
	}
	a.invalidate(c)
	return c.JSON(u)
}

// deactivateUser removes a user from the organization: the user's tokens
// and keys stop working on the next request, the record stays for the
// history it is part of, and the username stays taken. The last active
// admin, and the caller, cannot be deactivated (409).
func (a *API) deactivateUser(c *fiber.Ctx) error {
	id := c.Params("user_id")
	if _, err := a.Store.User(c.UserContext(), OrgID(c), id); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("user")
	} else if err != nil {
		return err
	}
	if id == FromCtx(c).UserID {
		return web.Conflict("you cannot deactivate yourself")
	}
	err := a.Store.DeactivateUser(c.UserContext(), OrgID(c), id, a.Clock.Now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("user")
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the organization's last admin stays an active admin; make another user admin first")
	case err != nil:
		return err
	}
	a.invalidate(c)
	return c.SendStatus(http.StatusNoContent)
}

// orEmpty makes a nil list render as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
