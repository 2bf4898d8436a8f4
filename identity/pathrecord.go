package identity

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// PathRecord reads, with read, the caller's organization's record whose
// id is the path parameter param: a missing record and another
// organization's alike answer 404 naming what.
func PathRecord[T any](c *fiber.Ctx, param, what string, read func(ctx context.Context, orgID, id string) (T, error)) (T, error) {
	id, err := web.PathParam(c, param)
	if err != nil {
		var zero T
		return zero, err
	}
	r, err := read(c.UserContext(), OrgID(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return r, web.NotFound(what)
	}
	return r, err
}
