package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// buildVigil compiles the binary for a test of this file.
func buildVigil(t *testing.T) string { return testenv.Build(t, ".") }

// process is a running `vigil serve`, its log lines collected as they come.
type process struct {
	cmd   *exec.Cmd
	lines chan map[string]any
	log   bytes.Buffer
}

func startVigil(t *testing.T, bin, dataDir string, env ...string) *process {
	t.Helper()
	// The master key file sits beside the data folder, never inside it.
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--master-key-file", dataDir+".master.key")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, lines: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(io.TeeReader(stderr, &p.log))
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return p
}

// waitFor returns the first log line whose msg is msg.
func (p *process) waitFor(t *testing.T, msg string) map[string]any {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("process ended before logging %q; log:\n%s", msg, p.log.String())
			}
			if m["msg"] == msg {
				return m
			}
		case <-timeout:
			t.Fatalf("no %q in the log after a minute:\n%s", msg, p.log.String())
		}
	}
}

func TestServeAndTerminate(t *testing.T) {
	bin := buildVigil(t)
	dir := t.TempDir()

	p := startVigil(t, bin, dir)
	first := p.waitFor(t, "created the first admin with a generated password; it is shown only this once")
	if pw, _ := first["password"].(string); len(pw) < 16 {
		t.Fatalf("got generated password %q, want at least 16 characters", pw)
	}
	addr := p.waitFor(t, "listening")["addr"].(string)
	res, err := http.Get("http://" + addr + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("got %v %v from /readyz, want 200", res, err)
	}
	res.Body.Close()

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("got exit %v after SIGTERM, want 0; log:\n%s", err, p.log.String())
	}
	if !strings.Contains(p.log.String(), "stopped cleanly") {
		t.Fatalf("got no 'stopped cleanly' in the log:\n%s", p.log.String())
	}

	// A restart on the same data creates no second admin.
	p = startVigil(t, bin, dir)
	p.waitFor(t, "listening")
	if strings.Contains(p.log.String(), "created the first admin") {
		t.Fatalf("got a second admin on restart; log:\n%s", p.log.String())
	}
}

func TestRolesFlag(t *testing.T) {
	bin := buildVigil(t)
	p := startVigil(t, bin, t.TempDir(), "VIGIL_ROLES=processor", "VIGIL_ADMIN_PASSWORD=long enough password")
	addr := p.waitFor(t, "listening")["addr"].(string)
	res, err := http.Get("http://" + addr + "/api/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("got %d from the API on a processor-only process, want 404", res.StatusCode)
	}
	code, ready, err := askReady("http://" + addr + "/readyz?verbose")
	if err != nil || code != 200 {
		t.Fatalf("got %d %v from /readyz, want 200", code, err)
	}
	roles := map[string]string{}
	for _, c := range ready.Checks {
		if strings.HasPrefix(c.Name, "role:") {
			roles[c.Name] = c.State
		}
	}
	if len(roles) != 1 || roles["role:processor"] != "ok" {
		t.Fatalf("got role checks %v, want role:processor only", roles)
	}
}

func TestCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"version"}, 0, "vigil "},
		{nil, 2, "Usage"},
		{[]string{"bogus"}, 2, "unknown command"},
		{[]string{"serve", "--roles", "everything"}, 2, "unknown role"},
		{[]string{"serve", "--registration", "maybe"}, 2, "registration"},
	} {
		var out bytes.Buffer
		if code := run(c.args, &out, &out); code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("vigil %v: got %d %q, want %d and %q", c.args, code, out.String(), c.code, c.out)
		}
	}
	t.Setenv("VIGIL_RATE_LIMIT_BATCH", "many")
	var out bytes.Buffer
	if code := run([]string{"serve"}, &out, &out); code != 2 || !strings.Contains(out.String(), "VIGIL_RATE_LIMIT_BATCH") {
		t.Errorf("got %d %q for a malformed VIGIL_RATE_LIMIT_BATCH, want 2 naming it", code, out.String())
	}
}

// TestAdminPasswordIgnored starts Vigil as the README's "Run Vigil" does,
// creating the admin, then again with VIGIL_ADMIN_PASSWORD as the
// quickstart does: a password that is not the admin's warns that it is
// ignored, the admin's own does not.
func TestAdminPasswordIgnored(t *testing.T) {
	const ignored = "VIGIL_ADMIN_PASSWORD IS IGNORED"
	bin := buildVigil(t)
	dir := t.TempDir()
	f := func(env []string, wantWarning bool) {
		t.Helper()
		p := startVigil(t, bin, dir, env...)
		p.waitFor(t, "listening")
		if got := strings.Contains(p.log.String(), ignored); got != wantWarning {
			t.Errorf("env %v: got warning %v, want %v; log:\n%s", env, got, wantWarning, p.log.String())
		}
		if wantWarning && !strings.Contains(p.log.String(), `"level":"WARN"`) {
			t.Errorf("env %v: got no WARN line, want one; log:\n%s", env, p.log.String())
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
	}
	f([]string{"VIGIL_ADMIN_PASSWORD=the first owner's own password"}, false)
	f([]string{"VIGIL_ADMIN_PASSWORD=the first owner's own password"}, false)
	f([]string{"VIGIL_ADMIN_PASSWORD=change me please, said the quickstart"}, true)
	f([]string{"VIGIL_ADMIN_USERNAME=someone", "VIGIL_ADMIN_PASSWORD=the first owner's own password"}, true)
	f(nil, false)
}

// TestServeHelp reads `vigil serve -h`: every flag names its environment
// variable, and durations are written as durations.
func TestServeHelp(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"serve", "-h"}, &out, &errs); code != 0 {
		t.Fatalf("got exit %d, want 0; stderr: %s", code, errs.String())
	}
	blocks := strings.Split(out.String(), "\n  --")[1:]
	if len(blocks) < 25 {
		t.Fatalf("got %d flags, want every flag of serve:\n%s", len(blocks), out.String())
	}
	for _, b := range blocks {
		name, _, _ := strings.Cut(b, " ")
		env := "VIGIL_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if !strings.Contains(b, "\n        "+env+" (default ") {
			t.Errorf("--%s: got %q, want its variable %s and default", name, b, env)
		}
	}
	for _, want := range []string{
		"--drift-tick duration", "VIGIL_DRIFT_TICK (default 1m)\n", "VIGIL_SHUTDOWN_GRACE (default 30s)\n",
		"VIGIL_AUTH_CACHE_TTL (default 1s)\n", "VIGIL_METRICS_ADDR", "VIGIL_METRICS_TOKEN",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("got no %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "m0s") {
		t.Errorf("got a duration with zero units (m0s) in:\n%s", out.String())
	}
}

// TestMetricsAddr serves /metrics on a listener of its own: there it
// answers, on the API's address it does not exist.
func TestMetricsAddr(t *testing.T) {
	p := startVigil(t, buildVigil(t), t.TempDir(), "VIGIL_METRICS_ADDR=127.0.0.1:0", "VIGIL_ADMIN_PASSWORD=long enough password")
	l := p.waitFor(t, "listening")
	addr, metrics := l["addr"].(string), l["metrics_addr"].(string)
	f := func(url string, want int, body string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || !strings.Contains(string(b), body) {
			t.Errorf("GET %s: got %d %.200s, want %d with %q", url, res.StatusCode, b, want, body)
		}
	}
	f("http://"+addr+"/readyz", 200, "ready")
	f("http://"+addr+"/metrics", 404, "NOT_FOUND")
	f("http://"+metrics+"/metrics", 200, `vigil_http_requests_total{method="GET",route="/readyz",status="200"} 1`)
}
