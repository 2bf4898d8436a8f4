package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigilhq/vigil/store"
)

// Names finds models by name and registers new ones; the transactional
// store is one.
type Names interface {
	// ModelVersions returns the versions named name, newest first.
	ModelVersions(ctx context.Context, orgID, name string) ([]Model, error)
	// CreateModel stores m; store.ErrConflict when the name and version
	// are taken.
	CreateModel(ctx context.Context, m Model) error
}

// FindOrRegister returns the newest version of the organization's model
// named fresh.Name. When there is none it registers fresh (its
// collections given their empty values), or answers store.ErrNotFound
// when register is false. Two callers registering one name at once get
// the same model: the loser of the race reads the winner's.
func FindOrRegister(ctx context.Context, names Names, fresh Model, register bool) (Model, error) {
	for range 2 {
		ms, err := names.ModelVersions(ctx, fresh.OrgID, fresh.Name)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return Model{}, err
		}
		if len(ms) > 0 {
			return ms[0], nil
		}
		if !register {
			return Model{}, store.ErrNotFound
		}
		normalize(&fresh)
		err = names.CreateModel(ctx, fresh)
		if err == nil {
			return fresh, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return Model{}, err
		}
	}
	return Model{}, fmt.Errorf("registering model %q: %w", fresh.Name, store.ErrConflict)
}
