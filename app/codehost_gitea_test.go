// The test against a real Gitea runs in `make test` (CI): engines.sh up
// starts building Gitea (pure Go, CGO off, no SQLite) in the background,
// and the test waits for the binary, bounded; Gitea keeps its data in a
// schema of its own on the tests' PostgreSQL.

package app

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost/automation"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// giteaBuildWait bounds the wait for engines.sh's background build of
// Gitea (it overlaps the first tests of a CI run).
const giteaBuildWait = 25 * time.Minute

// giteaBinary returns the Gitea binary and its static folder, waiting
// (bounded by giteaBuildWait and the test's deadline) while engines.sh
// builds it; a failed build fails the test with its log.
func giteaBinary(t *testing.T) (string, string) {
	t.Helper()
	bin := testenv.URL(t, testenv.Gitea)
	logPath := os.Getenv(testenv.GiteaBuildLog)
	deadline := time.Now().Add(giteaBuildWait)
	if d, ok := t.Deadline(); ok && d.Add(-5*time.Minute).Before(deadline) {
		deadline = d.Add(-5 * time.Minute)
	}
	for waited := false; ; waited = true {
		if _, err := os.Stat(bin); err == nil {
			if waited {
				t.Logf("gitea: the background build finished")
			}
			return bin, os.Getenv(testenv.GiteaStatic)
		}
		build, _ := os.ReadFile(logPath)
		if bytes.Contains(build, []byte("gitea: build failed")) {
			t.Fatalf("engines.sh could not build Gitea:\n%s", lastLines(build, 30))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not built within the wait (log %s):\n%s", bin, logPath, lastLines(build, 10))
		}
		if !waited {
			t.Logf("gitea: waiting for engines.sh's background build (log %s)", logPath)
		}
		time.Sleep(5 * time.Second)
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// gitea is a real Gitea on loopback: its tables in a schema of their own
// on the tests' PostgreSQL (dropped when the test ends), its repositories
// in a temporary folder, an admin user and a token with the scopes a
// Vigil connection needs.
type gitea struct {
	t                      *testing.T
	url                    string // http://127.0.0.1:port
	user, password, token  string
	bin, ini, dir, gitHome string
}

// startGitea runs `gitea web` until the test ends.
func startGitea(t *testing.T) *gitea {
	t.Helper()
	bin, static := giteaBinary(t)
	dir := t.TempDir()
	db := giteaDatabase(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	g := &gitea{t: t, url: fmt.Sprintf("http://127.0.0.1:%d", port), user: "vigil", password: "gitea-" + rand.Text(),
		bin: bin, ini: filepath.Join(dir, "app.ini"), dir: dir, gitHome: filepath.Join(dir, "client")}
	ini := fmt.Sprintf(`APP_NAME = Vigil test forge
RUN_MODE = prod
WORK_PATH = %[1]s
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[2]d
ROOT_URL = %[3]s/
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
STATIC_ROOT_PATH = %[4]s
APP_DATA_PATH = %[1]s/data

[database]
%[6]s

[security]
INSTALL_LOCK = true
SECRET_KEY = %[5]s
PASSWORD_COMPLEXITY = off

[service]
DISABLE_REGISTRATION = true

[webhook]
; Vigil's delivery endpoint listens on loopback in the test.
ALLOWED_HOST_LIST = loopback
DELIVER_TIMEOUT = 10

[repository]
ROOT = %[1]s/repos
DEFAULT_BRANCH = main

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[log]
MODE = console
LEVEL = Warn
ROOT_PATH = %[1]s/log

[mailer]
ENABLED = false

[cron]
ENABLED = false

[actions]
ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory
`, dir, port, g.url, static, rand.Text(), db)
	if err := os.WriteFile(g.ini, []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	g.run("migrate")
	g.run("admin", "user", "create", "--username", g.user, "--password", g.password, "--email", "vigil@example.com",
		"--admin", "--must-change-password=false")
	logFile, err := os.Create(filepath.Join(dir, "web.log"))
	if err != nil {
		t.Fatal(err)
	}
	web := g.command("web")
	web.Stdout, web.Stderr = logFile, logFile
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- web.Wait() }()
	t.Cleanup(func() {
		_ = web.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = web.Process.Kill()
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("gitea's log:\n%s", lastLines(b, 40))
		}
	})
	for deadline := time.Now().Add(2 * time.Minute); ; {
		res, err := http.Get(g.url + "/api/v1/version")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logFile.Name())
			t.Fatalf("gitea web exited (%v):\n%s", err, lastLines(b, 40))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("gitea web does not answer /api/v1/version within 2 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The token Vigil connects with: reading the user, repositories and
	// organizations, writing repositories (webhooks) and issues (comments).
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	g.api("POST", "/users/"+g.user+"/tokens", map[string]any{"name": "vigil",
		"scopes": []string{"read:user", "write:repository", "read:organization", "write:issue"}}, 201, &tok)
	g.token = tok.SHA1
	return g
}

// giteaDatabase returns the [database] section of Gitea's app.ini: a new
// schema on the tests' PostgreSQL (testenv.PostgresSchema), which Gitea
// creates its tables in.
func giteaDatabase(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(testenv.PostgresSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	ssl := u.Query().Get("sslmode")
	if ssl == "" {
		ssl = "prefer"
	}
	return fmt.Sprintf("DB_TYPE = postgres\nHOST = %s\nNAME = %s\nUSER = %s\nPASSWD = `%s`\nSSL_MODE = %s\nSCHEMA = %s",
		u.Host, strings.TrimPrefix(u.Path, "/"), u.User.Username(), pass, ssl, u.Query().Get("search_path"))
}

func (g *gitea) command(args ...string) *exec.Cmd {
	cmd := exec.Command(g.bin, append(args, "--config", g.ini, "--work-path", g.dir)...)
	cmd.Env = append(os.Environ(), "GITEA_WORK_DIR="+g.dir, "HOME="+g.dir)
	return cmd
}

// run runs a gitea command to its end.
func (g *gitea) run(args ...string) {
	g.t.Helper()
	if out, err := g.command(args...).CombinedOutput(); err != nil {
		g.t.Fatalf("gitea %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// api calls Gitea's API as the admin (basic authentication), wants
// status, and decodes the answer into out when not nil.
func (g *gitea) api(method, path string, body any, status int, out any) {
	g.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			g.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, g.url+"/api/v1"+path, r)
	if err != nil {
		g.t.Fatal(err)
	}
	req.SetBasicAuth(g.user, g.password)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		g.t.Fatalf("gitea %s %s: got %d %s, want %d", method, path, res.StatusCode, b, status)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			g.t.Fatalf("gitea %s %s: %v in %s", method, path, err, b)
		}
	}
}

// git runs git in dir as a client of the forge would.
func (g *gitea) git(dir string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Vigil Test", "-c", "user.email=vigil@example.com",
		"-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+g.gitHome, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files into the clone, commits them and pushes branch
// over HTTP; it returns the commit's id.
func (g *gitea) commit(clone, branch string, files map[string]string) string {
	g.t.Helper()
	for name, content := range files {
		p := filepath.Join(clone, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
	g.git(clone, "add", "-A")
	g.git(clone, "commit", "-q", "-m", "models")
	g.git(clone, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	return g.git(clone, "rev-parse", "HEAD")
}

// TestCodehostGitea: Vigil against a real Gitea on loopback. A token
// made in Gitea connects; a repository is tracked and its webhook set up
// through Vigil; `git push` of a .monitor.yml and a .pkl over HTTP makes
// Gitea post a real signed delivery, from which the model version
// registers by itself; the running comment of a pull request is posted
// and then updated in place in Gitea. Check runs and branch protection
// are not here: Gitea has no check runs and its branch protection API is
// not GitHub's (the validated fake covers them).
func TestCodehostGitea(t *testing.T) {
	// Parallel: it runs after the package's other tests, which leaves the
	// background build of Gitea (engines.sh up) the most time to end.
	t.Parallel()
	g := startGitea(t)
	eachBackend(t, func(c *config.Config) {
		c.CodehostAPIURL = g.url + "/api/v1/"
		c.CodehostFlavor = hostapi.FlavorGitea
		c.OutboundAllow = append(c.OutboundAllow, "127.0.0.1")
	}, func(t *testing.T, s *server) {
		admin := s.admin()
		name := "models-" + strings.ToLower(rand.Text()[:8])
		g.api("POST", "/user/repos", map[string]any{"name": name, "auto_init": true, "default_branch": "main"}, 201, nil)

		conn := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": g.token}).want(t, 201)
		if conn.str("codehost_username") != g.user {
			t.Fatalf("got %s, want a connection of %s", conn.raw, g.user)
		}
		if v := s.do("POST", "/codehost/connections/"+conn.str("id")+"/verify", admin, nil).want(t, 200); v.at("valid") != true {
			t.Fatalf("verify: got %s, want valid", v.raw)
		}
		listed := s.do("GET", "/codehost/connections/"+conn.str("id")+"/repositories", admin, nil).want(t, 200)
		if !strings.Contains(string(listed.raw), `"`+g.user+"/"+name+`"`) {
			t.Errorf("repositories: got %s, want %s/%s listed", listed.raw, g.user, name)
		}
		repo := s.do("POST", "/codehost/repositories/track", admin, map[string]any{"connection_id": conn.str("id"), "owner": g.user,
			"name": name, "tracked_branches": []string{"main"}, "auto_register_enabled": true}).want(t, 201)
		if repo.str("default_branch") != "main" {
			t.Errorf("tracked: got %s, want default branch main", repo.raw)
		}
		id := repo.str("id")
		if hook := s.do("POST", "/codehost/repositories/"+id+"/webhook", admin, nil).want(t, 200); hook.str("webhook_status") != "active" {
			t.Fatalf("webhook: got %s, want active", hook.raw)
		}
		var hooks []struct {
			Type   string            `json:"type"`
			Events []string          `json:"events"`
			Config map[string]string `json:"config"`
		}
		g.api("GET", "/repos/"+g.user+"/"+name+"/hooks", nil, 200, &hooks)
		if len(hooks) != 1 || !strings.HasSuffix(hooks[0].Config["url"], "/api/v1/codehost/webhooks?repository="+id) {
			t.Fatalf("got Gitea's hooks %+v, want Vigil's", hooks)
		}

		clone := t.TempDir()
		remote := strings.Replace(g.url, "://", "://"+g.user+":"+g.token+"@", 1) + "/" + g.user + "/" + name + ".git"
		g.git(clone, "clone", "-q", remote, ".")
		sha := g.commit(clone, "main", map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "\x80\x04K\x01."})
		// Gitea delivers the push (signed with X-Hub-Signature-256) to
		// Vigil, whose processor registers the version.
		var versions []any
		waitLong(t, "the model version registered from Gitea's delivery", func() bool {
			versions = s.do("GET", "/models/churn/versions", admin, nil).list
			return len(versions) == 1
		})
		if m := versions[0].(map[string]any); m["version"] != sha[:12] || m["framework"] != "sklearn" {
			t.Errorf("got %v, want version %s of an sklearn model", m, sha[:12])
		}
		deliveries := s.do("GET", "/codehost/repositories/"+id+"/deliveries", admin, nil).want(t, 200).at("deliveries").([]any)
		if len(deliveries) != 1 || deliveries[0].(map[string]any)["event"] != "push" {
			t.Errorf("got deliveries %v, want Gitea's one push", deliveries)
		}

		// A pull request from a branch; the running comment is posted,
		// then edited in place.
		g.commit(clone, "feature", map[string]string{"models/churn.pkl": "\x80\x04K\x02."})
		var pr struct {
			Number int `json:"number"`
		}
		g.api("POST", "/repos/"+g.user+"/"+name+"/pulls", map[string]any{"head": "feature", "base": "main", "title": "Retrain churn"}, 201, &pr)
		path := fmt.Sprintf("/codehost/automation/repositories/%s/pr-comments/%d", id, pr.Number)
		s.do("PUT", path, admin, map[string]any{"comment_body": "Drift: none", "comment_identifier": "drift-report"}).want(t, 201)
		s.do("PUT", path, admin, map[string]any{"comment_body": "Drift: high", "comment_identifier": "drift-report"}).want(t, 200)
		var comments []struct {
			Body string `json:"body"`
		}
		g.api("GET", fmt.Sprintf("/repos/%s/%s/issues/%d/comments", g.user, name, pr.Number), nil, 200, &comments)
		if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "Drift: high") ||
			!strings.Contains(comments[0].Body, automation.Marker("drift-report")) {
			t.Errorf("got Gitea's comments %+v, want one, updated to Drift: high with its marker", comments)
		}
	})
}

// waitLong is waitWithin with the bound of a delivery that crosses
// another process (Gitea's webhook queue) on a loaded machine.
func waitLong(t *testing.T, what string, ok func() bool) {
	t.Helper()
	waitWithin(t, what, 2*time.Minute, ok)
}
