package sdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
)

// run runs name with args in dir, failing the test with its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
	t.Logf("%s %v:\n%s", filepath.Base(name), args, out)
}

// TestPythonSDK installs sdk/python as a user would (pip install
// ./sdk/python), checks its types with mypy --strict, and runs its pytest
// suite, which starts a real `vigil serve` of this tree.
func TestPythonSDK(t *testing.T) {
	py := testenv.URL(t, testenv.SDKPython)
	bin := testenv.Build(t, "../cmd/vigil")
	site := t.TempDir()
	// The venv holds the build backend, so the install needs no network.
	run(t, ".", nil, py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", site, "./python")
	run(t, "python", nil, py, "-m", "mypy", "--strict", "src/vigil")
	run(t, "python", []string{"PYTHONPATH=" + site, "VIGIL_BIN=" + bin}, py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
}
