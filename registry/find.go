package registry

import (
	"context"
	"errors"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Finder looks a model up within an organization; the transactional store
// is one.
type Finder interface {
	Model(ctx context.Context, orgID, id string) (Model, error)
}

// Find returns the organization's model id. A missing model and another
// organization's answer alike, 404 MODEL_NOT_FOUND with the same message,
// so that no id can be told to exist. Every handler that takes a model id,
// in its path or as a list's filter, resolves it here.
func Find(ctx context.Context, models Finder, orgID, id string) (Model, error) {
	m, err := models.Model(ctx, orgID, id)
	return m, notFound(err, "model")
}

// Users looks a user up within an organization; the transactional store
// is one.
type Users interface {
	User(ctx context.Context, orgID, id string) (identity.User, error)
}

// findOwner answers 404 NOT_FOUND unless the organization has the user id,
// as GET /users/{user_id} does: the owner_id filter of the model list.
func findOwner(ctx context.Context, users Users, orgID, id string) error {
	_, err := users.User(ctx, orgID, id)
	return notFound(err, "user")
}

// notFound turns the store's ErrNotFound into the 404 of what.
func notFound(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound(what)
	}
	return err
}
