package deploy_test

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct{ cmd, args string }

func dockerfile(t *testing.T) []instruction {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if more, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// TestImage reads the Dockerfile as docker would and runs its build step
// here: the binary it makes must be static (the final image is distroless
// static: no libc), and the image must run as a non-root user with only
// variables Vigil reads.
func TestImage(t *testing.T) {
	ins := dockerfile(t)
	var final int
	for i, in := range ins {
		if in.cmd == "FROM" {
			final = i
		}
	}
	if from := ins[final].args; !strings.HasPrefix(from, "gcr.io/distroless/static") || !strings.HasSuffix(from, ":nonroot") {
		t.Errorf("final stage FROM %q: want distroless static, nonroot", from)
	}
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v] = true
	}
	var user, build, health string
	for _, in := range ins[final:] {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				if k, _, _ := strings.Cut(kv, "="); !known[k] {
					t.Errorf("ENV %s: got a variable vigil serve does not read", k)
				}
			}
		case "HEALTHCHECK":
			health = in.args
		}
	}
	if user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("USER %q: want a non-root user", user)
	}
	if !strings.Contains(health, `vigil", "health"]`) {
		t.Errorf("HEALTHCHECK %q: want vigil health (no shell in distroless)", health)
	}
	for _, in := range ins[:final] {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			build, _, _ = strings.Cut(in.args, "&&")
		}
	}
	if !strings.Contains(build, "CGO_ENABLED=0") {
		t.Fatalf("build step %q: want CGO_ENABLED=0", build)
	}

	bin := filepath.Join(t.TempDir(), "vigil")
	step := strings.NewReplacer("${VERSION}", "image-test", "/out/vigil", bin).Replace(build)
	cmd := exec.Command("sh", "-c", step)
	cmd.Dir = ".." // the image builds from the repository's root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's build step %q: %v\n%s", step, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the image's binary asks for a dynamic loader: distroless static has none")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the image's binary needs %v: distroless static has no libc", libs)
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(out), "vigil image-test") {
		t.Errorf("vigil version of the image's binary: got %q %v, want vigil image-test", out, err)
	}
}

// TestDockerignore: the build context never carries the local data, the
// history, the binaries or test outputs, and still carries the sources.
// Patterns are read as docker reads them: from the context's root
// (the repository), a leading "**/" at any depth.
func TestDockerignore(t *testing.T) {
	b, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.TrimPrefix(line, "/"))
		}
	}
	ignored := func(path string) bool {
		parts := strings.Split(path, "/")
		for _, p := range patterns {
			anywhere := strings.HasPrefix(p, "**/")
			p = strings.TrimPrefix(p, "**/")
			for i := 1; i <= len(parts); i++ {
				for j := 0; j < i; j++ {
					if j > 0 && !anywhere {
						break
					}
					if ok, _ := filepath.Match(p, strings.Join(parts[j:i], "/")); ok {
						return true
					}
				}
			}
		}
		return false
	}
	for _, path := range []string{".git/config", "bin/vigil", "vigil-data/vigil.db", "vigil", "app/app.test", "cover.out", "dist/x"} {
		if !ignored(path) {
			t.Errorf("%s: got it in the build context, want it ignored", path)
		}
	}
	for _, path := range []string{"go.mod", "go.sum", "cmd/vigil/main.go", "deploy/helm/vigil/values.yaml", "web/static/index.html", "schemas/openapi.json"} {
		if ignored(path) {
			t.Errorf("%s: got it ignored, want it in the build context", path)
		}
	}
}
