package codehost

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// RepositoryParam returns the caller's tracked repository of the
// repository_id path parameter, or the 404 of a missing one.
func RepositoryParam(c *fiber.Ctx, s Store) (Repository, error) {
	r, err := s.CodehostRepository(c.UserContext(), identity.OrgID(c), c.Params("repository_id"))
	if errors.Is(err, store.ErrNotFound) {
		return r, web.NotFound("repository")
	}
	return r, err
}

// ConnectionParam returns the caller's connection of the connection_id
// path parameter, or the 404 of a missing one.
func ConnectionParam(c *fiber.Ctx, s Store) (Connection, error) {
	conn, err := s.CodehostConnection(c.UserContext(), identity.OrgID(c), c.Params("connection_id"))
	if errors.Is(err, store.ErrNotFound) {
		return conn, web.NotFound("connection")
	}
	return conn, err
}
