package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// walkPrelude runs before a walk's blocks. Its curl stands in for the real
// one: it prints the answer as curl -s does, keeps it for the "# => text"
// lines (each a fragment the last answer must hold) and fails on an HTTP
// error, so that every call must answer as the page says. On exit, a
// server left running is stopped.
const walkPrelude = `set -euo pipefail
ANSWER="$(mktemp)"
curl() {
  local code
  : >"$ANSWER"
  code="$(command curl -w '%{http_code}' "$@" -o "$ANSWER")" || return
  cat "$ANSWER"
  if [ "$code" -ge 400 ]; then echo "walk: HTTP $code from curl $*" >&2; return 22; fi
}
answers() {
  local want="$1" name
  while [[ "$want" =~ \$([A-Z_]+) ]]; do name="${BASH_REMATCH[1]}"; want="${want//\$$name/${!name:-}}"; done
  grep -qF -- "$want" "$ANSWER" || { echo "walk: the last answer has no $want: $(cat "$ANSWER")" >&2; exit 1; }
}
trap 'if [ -n "${VIGIL_PID:-}" ]; then kill "$VIGIL_PID" 2>/dev/null || true; fi' EXIT
`

// walks are the pages whose ```sh blocks TestReadmeWalks runs, each with
// the least number of "# => " answers it must hold. Blocks fenced as
// ```shell (a code host, Docker) are shown only.
var walks = []struct {
	name   string
	file   string // from the repository's root
	checks int
}{
	{"Quickstart", "README.md", 4},
	{"models-and-predictions", "docs/models-and-predictions.md", 3},
	{"drift", "docs/drift.md", 1},
	{"bias", "docs/bias.md", 1},
	{"explanations", "docs/explanations.md", 10},
	{"alerts", "docs/alerts.md", 8},
	{"risk-register-and-trust", "docs/risk-register-and-trust.md", 10},
	{"governance-reviews", "docs/governance-reviews.md", 7},
	{"exports-and-reports", "docs/exports-and-reports.md", 7},
	{"workflows", "docs/workflows.md", 2},
	{"operations", "docs/operations.md", 1},
}

// baseLine sets BASE in the first block of each walk.
const baseLine = "BASE=${BASE:-http://localhost:8080}"

var shBlock = regexp.MustCompile("(?s)\n```sh\n(.*?)\n```")

// shBlocks returns the ```sh blocks of text, in order.
func shBlocks(text string) []string {
	var blocks []string
	for _, m := range shBlock.FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// readRoot reads a file of the repository by its path from the root.
func readRoot(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// quickstartBlocks returns the blocks of README's Quickstart section; the
// last is Stop.
func quickstartBlocks(t *testing.T) []string {
	t.Helper()
	_, section, ok := strings.Cut(readRoot(t, "README.md"), "\n## Quickstart\n")
	if !ok {
		t.Fatal("got no Quickstart section in README.md")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := shBlocks(section)
	if len(blocks) < 4 || !strings.Contains(blocks[len(blocks)-1], "kill $VIGIL_PID") {
		t.Fatalf("got %d sh blocks in the Quickstart, want the whole walk-through ending in Stop", len(blocks))
	}
	return blocks
}

// script returns the shell script of blocks with "# => text" lines turned
// into checks, and the number of checks.
func script(blocks []string) (string, int) {
	var b strings.Builder
	b.WriteString(walkPrelude)
	checks := 0
	for _, block := range blocks {
		for _, line := range strings.Split(block, "\n") {
			if want, ok := strings.CutPrefix(line, "# => "); ok {
				line = "answers '" + strings.ReplaceAll(want, "'", `'\''`) + "'"
				checks++
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String(), checks
}

// TestReadmeWalks runs README.md's Quickstart, and each guide of docs/
// with a walk-through, as a new user pastes them: in a fresh folder with
// bin/vigil built (and docs/ beside it), every block in order. The walks
// set BASE=${BASE:-http://localhost:8080} and name the server as $BASE
// only, so the test gives a free port in BASE and VIGIL_ADDR instead of
// rewriting the text. A guide goes on from the Quickstart's setup: its
// script is the Quickstart's blocks but Stop, the guide's blocks, then
// Stop; so no guide depends on another, each starts its own server, and
// they run in parallel. Every call must succeed and answer what the page
// shows ($NAME in a "# => " line is the shell's variable), the server must
// be gone at the end, and the walk's files must be under walkthrough/.
func TestReadmeWalks(t *testing.T) {
	quick := quickstartBlocks(t)
	listed := map[string]bool{}
	for _, w := range walks {
		listed[w.file] = true
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range docs {
		file := "docs/" + filepath.Base(path)
		if !listed[file] && len(shBlocks(readRoot(t, file))) > 0 {
			t.Errorf("got sh blocks in %s, want it listed in walks", file)
		}
	}
	_, quickChecks := script(quick)
	bin := buildVigil(t)
	for _, w := range walks {
		blocks, want := quick, w.checks
		if w.file != "README.md" {
			own := shBlocks(readRoot(t, w.file))
			blocks = append(append(append([]string(nil), quick[:len(quick)-1]...), own...), quick[len(quick)-1])
			want += quickChecks
		}
		text, checks := script(blocks)
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "localhost:8080") && line != baseLine {
				t.Errorf("%s: got %q, want the server named as $BASE", w.file, line)
			}
		}
		if checks < want {
			t.Fatalf("%s: got %d '# => ' answers, want at least %d", w.file, checks-(want-w.checks), w.checks)
		}
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			runWalk(t, bin, text)
		})
	}
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runWalk runs a walk's script in a fresh folder against bin on a free
// port, then checks that the server stopped cleanly and is gone.
func runWalk(t *testing.T, bin, script string) {
	addr := freeAddr(t)
	port := addr[strings.LastIndex(addr, ":")+1:]
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "vigil")); err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Abs("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(docs, filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	// The alert walk-through waits for a minute to end before its alert
	// fires: up to a minute and a few seconds on top of the rest.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	// A new user's environment: no VIGIL_ variable but the port, which
	// BASE names too.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VIGIL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The master key file goes where a new user's would (the user's
	// configuration folder), here one of the test's own.
	cmd.Env = append(cmd.Env, "VIGIL_ADDR="+addr, "BASE=http://localhost:"+port, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	// What the blocks started in the background (the alert receivers)
	// is gone with their process group, even when a block failed.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	log, _ := os.ReadFile(filepath.Join(dir, walkFolder, "vigil.log"))
	if err != nil {
		received, _ := os.ReadFile(filepath.Join(dir, walkFolder, "receivers.log"))
		t.Fatalf("the walk failed: %v\n%s\nvigil.log:\n%s\nreceivers.log:\n%s", err, out, log, received)
	}
	t.Logf("the walk's output:\n%s", out)
	if !strings.Contains(string(log), "stopped cleanly") {
		t.Fatalf("got no 'stopped cleanly' in vigil.log, want the server stopped by the walk:\n%s", log)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("got %s still answering after the walk, want the server gone", addr)
	}
	checkLeftovers(t, dir)
}

// walkFolder holds every file a walk writes; .gitignore names it.
const walkFolder = "walkthrough"

// checkLeftovers fails when a walk left a file in dir, the repository's
// folder to a user, outside walkFolder and the server's data folder.
func checkLeftovers(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// bin and docs are the repository's, config the test's own.
	kept := map[string]bool{"bin": true, "docs": true, "config": true, "vigil-data": true, walkFolder: true}
	for _, e := range entries {
		if !kept[e.Name()] {
			t.Errorf("got %s left in the folder by the walk, want it under %s/", e.Name(), walkFolder)
		}
	}
	ignore := readRoot(t, ".gitignore")
	if !strings.Contains(ignore, "\n/"+walkFolder+"/\n") {
		t.Errorf("got no /%s/ line in .gitignore, want the walks' files ignored", walkFolder)
	}
}
