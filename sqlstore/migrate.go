package sqlstore

import (
	"context"
	"io/fs"

	"github.com/vigilhq/vigil/platform/sqlmigrate"
)

// Migrate applies the migrations in dir of fsys that are not applied yet,
// each in its own transaction, in file-name order (sqlmigrate.Apply).
// Concurrent starts of several replicas are serialised by the dialect's
// migration lock.
func (s *DB) Migrate(ctx context.Context, fsys fs.FS, dir string) error {
	return sqlmigrate.Apply(ctx, s.db, sqlmigrate.Engine{Name: s.d.Name, Numbered: s.d.Numbered,
		Lock: s.d.LockMigrations, Classify: s.wrap}, fsys, dir)
}
