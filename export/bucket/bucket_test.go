package bucket_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/bucket"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestFiles holds both engines of export.Files to the contract: a file
// put is opened with the same bytes, put again it is replaced whole, a
// missing one is ErrNoFile, a delete is idempotent, and a put that fails
// leaves nothing under the name.
func TestFiles(t *testing.T) {
	s3 := testenv.StartS3(t, "exports")
	b, err := bucket.New(bucket.Config{Endpoint: s3.Endpoint, Bucket: "exports", Prefix: "/vigil/files/", Region: s3.Region,
		AccessKeyID: s3.AccessKey, SecretAccessKey: s3.SecretKey, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range []struct {
		name  string
		files export.Files
		// stored reads what the engine keeps under a name, beside its API.
		stored func(name string) ([]byte, error)
	}{
		{"folder", export.Folder{Dir: filepath.Join(dir, "exports")}, func(name string) ([]byte, error) {
			return os.ReadFile(filepath.Join(dir, "exports", name))
		}},
		{"bucket", b, func(name string) ([]byte, error) {
			return os.ReadFile(filepath.Join(s3.Root, "exports", "vigil", "files", name))
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			read := func(name string) []byte {
				t.Helper()
				f, err := e.files.Open(ctx, name)
				if err != nil {
					t.Fatalf("open %s: %v", name, err)
				}
				defer f.Close()
				got, err := io.ReadAll(f)
				if err != nil {
					t.Fatalf("read %s: %v", name, err)
				}
				return got
			}
			put := func(name string, body []byte) {
				t.Helper()
				if err := e.files.Put(ctx, name, bytes.NewReader(body), int64(len(body))); err != nil {
					t.Fatalf("put %s: %v", name, err)
				}
			}
			first := bytes.Repeat([]byte("vigil,report\n"), 100_000) // 1.3 MB
			put("a.csv", first)
			if got := read("a.csv"); !bytes.Equal(got, first) {
				t.Errorf("got %d bytes, want the %d put", len(got), len(first))
			}
			if got, err := e.stored("a.csv"); err != nil || !bytes.Equal(got, first) {
				t.Errorf("got %d bytes stored (%v), want the %d put", len(got), err, len(first))
			}
			put("a.csv", []byte("again"))
			if got := read("a.csv"); string(got) != "again" {
				t.Errorf("got %q after a second put, want it replaced whole", got)
			}
			if _, err := e.files.Open(ctx, "missing.csv"); !errors.Is(err, export.ErrNoFile) {
				t.Errorf("got %v opening a missing file, want ErrNoFile", err)
			}
			short := strings.NewReader("cut short")
			if err := e.files.Put(ctx, "short.csv", short, 100); err == nil {
				t.Errorf("got a put of 9 bytes said to be 100 kept, want an error")
			}
			if _, err := e.files.Open(ctx, "short.csv"); !errors.Is(err, export.ErrNoFile) {
				t.Errorf("got %v opening a file whose put failed, want ErrNoFile", err)
			}
			for range 2 {
				if err := e.files.Delete(ctx, "a.csv"); err != nil {
					t.Errorf("delete: got %v, want nil (also when gone)", err)
				}
			}
			if _, err := e.files.Open(ctx, "a.csv"); !errors.Is(err, export.ErrNoFile) {
				t.Errorf("got %v opening a deleted file, want ErrNoFile", err)
			}
		})
	}

	// The store stopped: every call fails, and none says the file is
	// missing (a reader must not take an outage for a deleted report).
	s3.Stop(t)
	ctx := context.Background()
	if err := b.Put(ctx, "b.csv", strings.NewReader("x"), 1); err == nil {
		t.Errorf("put to a stopped store: got nil, want an error")
	}
	if _, err := b.Open(ctx, "b.csv"); err == nil || errors.Is(err, export.ErrNoFile) {
		t.Errorf("open from a stopped store: got %v, want an error other than ErrNoFile", err)
	}
	if err := b.Delete(ctx, "b.csv"); err == nil {
		t.Errorf("delete from a stopped store: got nil, want an error")
	}
}

// TestNewRefuses: an endpoint that is not an http(s) URL, or a missing
// bucket or key, is refused at start.
func TestNewRefuses(t *testing.T) {
	ok := bucket.Config{Endpoint: "http://127.0.0.1:9000", Bucket: "b", AccessKeyID: "k", SecretAccessKey: "s"}
	for _, tc := range []struct {
		name string
		edit func(*bucket.Config)
	}{
		{"no scheme", func(c *bucket.Config) { c.Endpoint = "127.0.0.1:9000" }},
		{"ftp", func(c *bucket.Config) { c.Endpoint = "ftp://127.0.0.1" }},
		{"no bucket", func(c *bucket.Config) { c.Bucket = "" }},
		{"no secret", func(c *bucket.Config) { c.SecretAccessKey = "" }},
	} {
		c := ok
		tc.edit(&c)
		if _, err := bucket.New(c); err == nil {
			t.Errorf("%s: got no error, want the configuration refused", tc.name)
		}
	}
	if _, err := bucket.New(ok); err != nil {
		t.Errorf("got %v, want a good configuration taken", err)
	}
}
