package testenv

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Build compiles the command in pkg (a go build package path, such as
// "." or "../cmd/vigil") into the test's temporary folder and returns the
// binary's path, for tests that run the real program as a process.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(abs))
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
