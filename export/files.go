package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrNoFile is what Files.Open answers for a name it does not hold.
var ErrNoFile = errors.New("no such export file")

// Files is where generated files live: the local folder by default
// (Folder), an S3-compatible bucket when configured (package
// export/bucket). Every reader of a generated file goes through it:
// downloads, share downloads, deliveries and retention.
type Files interface {
	// Put stores size bytes read from r as the file name. It is durable
	// before nil: once it answers nil the whole file is kept and every
	// replica sharing the store opens it; until then no reader sees any
	// of it under name (it is written under a temporary name, or sent as
	// one object that appears whole). Putting a name again replaces the
	// file whole: a retried Put is harmless.
	Put(ctx context.Context, name string, r io.Reader, size int64) error
	// Open opens the file name for reading; ErrNoFile when there is none.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// Delete removes the file name; a name already gone is no error, so
	// that a retried Delete is harmless.
	Delete(ctx context.Context, name string) error
}

// Folder is the local folder engine of Files: a file is written under a
// temporary name in Dir, synced, renamed to its name and the folder
// synced, so that a crash leaves either the whole file or none.
type Folder struct {
	Dir string
}

// Put writes the file under a temporary name, then renames it.
func (f Folder) Put(_ context.Context, name string, r io.Reader, size int64) error {
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return fmt.Errorf("export folder: %w", err)
	}
	tmp, err := os.CreateTemp(f.Dir, name+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write export file %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	n, err := io.Copy(tmp, r)
	if err == nil && n != size {
		err = fmt.Errorf("got %d bytes, want %d", n, size)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(f.Dir, name))
	}
	if err == nil {
		err = syncDir(f.Dir)
	}
	if err != nil {
		return fmt.Errorf("write export file %s: %w", name, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open opens the file from the folder.
func (f Folder) Open(_ context.Context, name string) (io.ReadCloser, error) {
	file, err := os.Open(filepath.Join(f.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoFile, name)
	}
	return file, err
}

// Delete removes the file from the folder.
func (f Folder) Delete(_ context.Context, name string) error {
	if err := os.Remove(filepath.Join(f.Dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove export file %s: %w", name, err)
	}
	return nil
}
