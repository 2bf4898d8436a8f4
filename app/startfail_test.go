package app

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
)

// TestStartBusyPort: a start whose address is taken fails naming it and
// creates nothing: no data folder, no admin, no master key.
func TestStartBusyPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cfg := testConfig(t)
	cfg.Addr = busy.Addr().String()
	cfg.DataDir = filepath.Join(t.TempDir(), "vigil-data")
	a, err := New(t.Context(), cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err == nil {
		a.Close()
		t.Fatal("New on a busy port: got nil, want an error")
	}
	if !strings.Contains(err.Error(), cfg.Addr) {
		t.Errorf("got error %q, want it to name %s", err, cfg.Addr)
	}
	for _, p := range []string{cfg.DataDir, cfg.MasterKeyFile} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: got %v, want nothing created", p, err)
		}
	}
}

// TestStartUnwritableDataDir: a data folder that cannot be written fails
// the start with an error that names it. As root, permissions do not
// stop writes: the folder is then a read-only tmpfs.
func TestStartUnwritableDataDir(t *testing.T) {
	cfg := testConfig(t)
	cfg.DataDir = readOnlyDir(t)
	_, err := New(t.Context(), cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("New on a read-only data folder: got nil, want an error")
	}
	if !strings.Contains(err.Error(), cfg.DataDir) {
		t.Errorf("got error %q, want it to name %s", err, cfg.DataDir)
	}
}

// readOnlyDir returns an empty folder that this process cannot write.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return dir
	}
	return tmpfs(t, "ro,size=1m")
}

// tmpfs mounts a tmpfs with options on a new folder until the test ends.
// Without root or mount the test skips, or fails when CI=true.
func tmpfs(t *testing.T, options string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.Missing(t, "mount a tmpfs (root and mount needed): "+err.Error()+": "+strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}
