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

// quickstartPrelude runs before the README's blocks. Its curl stands in
// for the real one: it prints the answer as curl -s does, keeps it for
// the README's "# => text" lines (each a fragment the last answer must
// hold) and fails on an HTTP error, so that every call must answer as the
// README says. On exit, a server left running is stopped.
const quickstartPrelude = `set -euo pipefail
ANSWER="$(mktemp)"
curl() {
  local code
  : >"$ANSWER"
  code="$(command curl -w '%{http_code}' "$@" -o "$ANSWER")" || return
  cat "$ANSWER"
  if [ "$code" -ge 400 ]; then echo "README: HTTP $code from curl $*" >&2; return 22; fi
}
answers() {
  local want="$1" name
  while [[ "$want" =~ \$([A-Z_]+) ]]; do name="${BASH_REMATCH[1]}"; want="${want//\$$name/${!name:-}}"; done
  grep -qF -- "$want" "$ANSWER" || { echo "README: the last answer has no $want: $(cat "$ANSWER")" >&2; exit 1; }
}
trap 'if [ -n "${VIGIL_PID:-}" ]; then kill "$VIGIL_PID" 2>/dev/null || true; fi' EXIT
`

// quickstart returns the shell blocks of README's Quickstart section, in
// order, with "# => text" lines turned into checks and localhost:8080
// into addr.
func quickstart(t *testing.T, readme, addr string) string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Quickstart\n")
	if !ok {
		t.Fatal("got no Quickstart section in README.md")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)\n```sh\n(.*?)\n```").FindAllStringSubmatch(section, -1)
	if len(blocks) < 4 {
		t.Fatalf("got %d sh blocks in the Quickstart, want the whole walk-through", len(blocks))
	}
	var b strings.Builder
	b.WriteString(quickstartPrelude)
	checks := 0
	for _, m := range blocks {
		for _, line := range strings.Split(m[1], "\n") {
			if want, ok := strings.CutPrefix(line, "# => "); ok {
				line = "answers '" + strings.ReplaceAll(want, "'", `'\''`) + "'"
				checks++
			}
			b.WriteString(strings.ReplaceAll(line, "localhost:8080", addr) + "\n")
		}
	}
	if checks < 4 {
		t.Fatalf("got %d '# => ' answers in the Quickstart, want one after each call that shows one", checks)
	}
	return b.String()
}

// TestReadmeQuickstart runs README.md's Quickstart as a new user pastes
// it: in a fresh folder with bin/vigil built, every block in order, on a
// free port instead of 8080. Every call must succeed and answer what the
// README shows ($NAME in a "# => " line is the shell's variable), and the
// server must be gone at the end.
func TestReadmeQuickstart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	port := addr[strings.LastIndex(addr, ":")+1:]
	script := quickstart(t, string(readme), "localhost:"+port)

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(buildVigil(t), filepath.Join(dir, "bin", "vigil")); err != nil {
		t.Fatal(err)
	}
	// The alert walk-through waits for a minute to end before its alert
	// fires: up to a minute and a few seconds on top of the rest.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	// A new user's environment: no VIGIL_ variable but the port.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VIGIL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The master key file goes where a new user's would (the user's
	// configuration folder), here one of the test's own.
	cmd.Env = append(cmd.Env, "VIGIL_ADDR=127.0.0.1:"+port, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	// What the blocks started in the background (the alert receivers)
	// is gone with their process group, even when a block failed.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	log, _ := os.ReadFile(filepath.Join(dir, "vigil.log"))
	if err != nil {
		received, _ := os.ReadFile(filepath.Join(dir, "receivers.log"))
		t.Fatalf("the Quickstart failed: %v\n%s\nvigil.log:\n%s\nreceivers.log:\n%s", err, out, log, received)
	}
	t.Logf("the Quickstart's output:\n%s", out)
	if !strings.Contains(string(log), "stopped cleanly") {
		t.Fatalf("got no 'stopped cleanly' in vigil.log, want the server stopped by the Quickstart:\n%s", log)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("got %s still answering after the Quickstart, want the server gone", addr)
	}
}
