package app

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// The Schemathesis run: which checks, how many cases, which seed. The run is
// bounded by the number of examples per operation, not by Schemathesis's
// --max-time: since 4.x, --max-time is a budget the fuzzing and stateful
// phases keep drawing new cases until they have spent, so it would make every
// run last exactly that long. The wall-clock bound is stTimeout, enforced here.
const (
	// stChecks: every check. Beside no 5xx and every status code, content
	// type, header and body as the document says, that covers
	// negative_data_rejection (a request the document declares invalid is
	// refused), positive_data_acceptance (one it declares valid is
	// accepted; the rules JSON Schema cannot state are in stHooks),
	// unsupported_method, missing_required_header, the auth checks and the
	// stateful phase's use_after_free and ensure_resource_availability.
	stChecks      = "all"
	stMaxExamples = "40"
	stSeed        = "20261125"
	// stTimeout bounds one run. The two runs together take about 2m15s on
	// two cores (6,036 cases each; measured 2m6s and 2m11s side by side),
	// and up to 10 minutes when other heavy tests share the cores. With six
	// branches' Schemathesis runs sharing the two cores (load 20-28, 26
	// November 2026) the coverage phase alone took 3 and 6 minutes and the
	// fuzzing phase was still going at 15: this is the guard against a hung
	// run, not the expected duration, and stays under go test's -timeout 50m.
	stTimeout = 40 * time.Minute
)

// stScopes are the key's scopes: every non-admin read and write, plus each
// admin resource and configure permission, so that every operation of the
// document is reachable.
var stScopes = []string{"read", "write", "users:read", "users:write", "roles:read", "roles:write",
	"api_keys:read", "api_keys:write", "risk:configure", "governance:configure", "governance:review",
	"trust:configure", "reports:configure"}

// stHooks keeps the run from locking itself out (filter_case) and tells
// positive_data_acceptance about the rules the document states in words
// because JSON Schema cannot (filter_failure): each rule is written out
// there, and a refusal is excused only when the request breaks one and the
// answer names exactly its fields. runSchemathesis checks afterwards that
// the key still acts as an admin.
//
//go:embed testdata/schemathesis/hooks.py
var stHooks string

// stConfig makes an operation that answers nothing but 401 or 403 fail the
// run: the key is meant to reach every operation. The code host's event
// delivery is left out: it is authenticated by an HMAC of its body under a
// repository's secret, which no generated request carries, so every case
// would answer 401 (TestCodehostWebhookSignature and
// TestCodehostWebhookDeliveryOnce cover it). Likewise the download of a
// shared report takes a token only a verified passcode issues
// (TestExportShares covers it), and the dashboard's live channel takes its
// token as a query parameter, which Schemathesis generates at random, and
// speaks WebSocket once it is right (TestDashboardLive, TestDashboardLiveRefuses
// and TestDashboardLiveTokenEnds cover it).
const stConfig = `[warnings]
fail-on = ["missing_auth"]

[[operations]]
include-operation-id = "receiveCodehostDelivery"
enabled = false

[[operations]]
include-operation-id = "downloadShare"
enabled = false

[[operations]]
include-operation-id = "openDashboardLiveChannel"
enabled = false
`

// stFindings are requests with which Schemathesis found a 5xx. Whether a run
// generates them again depends on its seed and on every schema in the
// document, so they are replayed after each run: a finding stays checked
// until it is fixed. Bodies are sent as written (JSON escapes included).
var stFindings = []struct{ what, method, path, body string }{
	// PostgreSQL rejects U+0000 in text (SQLSTATE 22021) and the store
	// reports it as an internal error: 500 instead of 422.
	{"U+0000 in a login username", "POST", "/auth/login", `{"username": "jdoe\u0000", "password": "correct horse"}`},
	{"U+0000 in a model tag", "POST", "/models", `{"name": "nul-tag", "model_type": "llm", "tags": ["churn\u0000"]}`},
	{"U+0000 in a model search", "GET", "/models?search=churn%00", ""},
	{"U+0000 in a model name in the path", "GET", "/models/churn%00/versions", ""},
	// A batch body is read field by field, past Decode's check.
	{"U+0000 in a batch's model_id", "POST", "/predictions/log/batch", `{"predictions": [], "model_id": "m\u0000"}`},
	{"U+0000 in a calculation's model_id", "POST", "/metrics/calculate", `{"model_id": "m\u0000", "y_true": [1], "y_pred": [1], "metric_types": ["accuracy"]}`},
}

// TestSchemathesis runs Schemathesis against the served OpenAPI document with
// an admin API key: no request may answer 5xx, and every response must match
// the document (status, content type, headers, body). It runs on the
// embedded default and on PostgreSQL with Redis, whose stores differ in what
// they accept.
func TestSchemathesis(t *testing.T) {
	st := testenv.URL(t, testenv.Schemathesis)
	if _, err := os.Stat(st); err != nil {
		t.Fatalf("schemathesis: %v (install it with platform/testenv/engines.sh up)", err)
	}
	// The two runs share nothing, so they overlap: Schemathesis spends most
	// of a run generating cases, on one core each.
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); runSchemathesis(t, st, testConfig(t)) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); runSchemathesis(t, st, engineConfig(t)) })
}

func runSchemathesis(t *testing.T, st string, cfg config.Config) {
	// Every request counts against the organization's hour: lift the limits
	// so that no operation is throttled into answering only 429.
	const unlimited = 1 << 40
	cfg.Limits = config.Limits{Standard: unlimited, Predictions: unlimited, Batch: unlimited, Reports: unlimited}
	// The code host refuses every token the run makes up (hooks.py
	// excuses the 422 that names it), so no request leaves the machine.
	newForge(t).config(&cfg)
	s := start(t, cfg)
	key, keyID := s.key(s.admin(), stScopes...)
	me := s.do("GET", "/auth/me", key, nil).want(t, 200)
	userID := me.str("user.id")

	// The work folder holds the hooks, the configuration, the output and the
	// JUnit report; it is kept when the test fails.
	dir, err := os.MkdirTemp("", "vigil-schemathesis-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("schemathesis work folder kept: %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	hooks, stcfg := filepath.Join(dir, "hooks.py"), filepath.Join(dir, "schemathesis.toml")
	for name, text := range map[string]string{hooks: stHooks, stcfg: stConfig} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	args := func(auth string) []string {
		return []string{"--config-file", stcfg, "run", s.base + "/openapi.json",
			"--header", "Authorization: Bearer " + auth,
			"--checks", stChecks,
			"--max-examples", stMaxExamples,
			"--seed", stSeed,
			// One worker: the server's state (the models, users and keys
			// created so far) shapes the answers, so a fixed order of
			// requests is what makes a seed reproduce a run.
			"--workers", "1",
			"--continue-on-failure",
			"--request-timeout", "10",
			// No example database: a run depends on its seed only.
			"--generation-database", "none",
			"--report", "junit", "--report-dir", filepath.Join(dir, "report"),
			"--no-color"}
	}
	common, err := filepath.Abs("../identity/commonpasswords/passwords.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SCHEMATHESIS_HOOKS=" + hooks, "VIGIL_ST_KEY_ID=" + keyID, "VIGIL_ST_USER_ID=" + userID,
		"VIGIL_ST_COMMON_PASSWORDS=" + common}

	ctx, cancel := context.WithTimeout(context.Background(), stTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, st, args(key)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "NO_COLOR=1", "COLUMNS=120")
	// The output goes to st.log as it comes, to follow a run that is still
	// going, and to out for the report.
	log, err := os.Create(filepath.Join(dir, "st.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = cmd.Stdout
	began := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(began).Round(time.Second)

	repro := func() string {
		return fmt.Sprintf("Reproduce the whole run (the seed is fixed):\n"+
			"    eval \"$(platform/testenv/engines.sh env)\"; go test -timeout 30m -count=1 -run '^TestSchemathesis$/^%s$' -v ./app\n"+
			"or run Schemathesis against a server of your own (rate limits raised, VIGIL_ST_KEY an admin key with scopes %s,\n"+
			"VIGIL_ST_KEY_ID its id and VIGIL_ST_USER_ID its owner's id, as /auth/me shows; the hooks file is kept in %s):\n"+
			"    cd %s && SCHEMATHESIS_HOOKS=%s VIGIL_ST_COMMON_PASSWORDS=%s VIGIL_ST_KEY_ID=$VIGIL_ST_KEY_ID VIGIL_ST_USER_ID=$VIGIL_ST_USER_ID \\\n        %s\n"+
			"with the base address this run used: %s",
			strings.TrimPrefix(t.Name(), "TestSchemathesis/"), strings.Join(stScopes, ","), dir, dir, hooks, common,
			shellJoin(append([]string{st}, args("$VIGIL_ST_KEY")...)), s.base)
	}

	switch {
	case ctx.Err() != nil:
		t.Errorf("schemathesis did not finish within %v (a run takes about 2 minutes); output so far:\n%s\n%s",
			stTimeout, trimReport(out.String()), repro())
	case runErr != nil:
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			t.Fatalf("run %s: %v", st, runErr)
		}
		t.Errorf("schemathesis found problems (exit status %d, %v):\n%s\n%s",
			exit.ExitCode(), elapsed, trimReport(out.String()), repro())
	default:
		t.Logf("schemathesis passed in %v: %s", elapsed, summaryLine(out.String()))
	}

	for _, f := range stFindings {
		var body any
		if f.body != "" {
			body = f.body
		}
		if r := s.do(f.method, f.path, key, body); r.status >= 500 {
			t.Errorf("%s: %s %s %s answers %d, want a 4xx; body %s", f.what, f.method, f.path, f.body, r.status, r.raw)
		}
	}

	// The run must not have locked itself out (see stHooks): a key that no
	// longer acts as an admin means that part of the run tested nothing.
	r := s.do("GET", "/auth/me", key, nil)
	if r.status != 200 || r.str("user.role") != "admin" {
		t.Errorf("after the run, GET /auth/me with the run's key answers %d with role %q, want 200 and admin: "+
			"the run revoked its own key or demoted its owner, so later requests only tested 401/403; body %s\n%s",
			r.status, r.str("user.role"), r.raw, repro())
	}
}

// trimReport returns what matters of Schemathesis's output: from the first
// failure (or error, or warning) to the end, at most 24 KB of it.
func trimReport(s string) string {
	start := len(s)
	for _, marker := range []string{"=== FAILURES ===", "=== ERRORS ===", "=== WARNINGS ===", "=== SUMMARY ==="} {
		if i := strings.Index(s, marker); i >= 0 {
			// Back to the start of the line of '='.
			if j := strings.LastIndexByte(s[:i], '\n'); j >= 0 {
				i = j + 1
			}
			start = min(start, i)
		}
	}
	if start == len(s) {
		start = 0
	}
	s = s[start:]
	const limit = 24 << 10
	if len(s) > limit {
		s = s[:limit/2] + "\n[... trimmed: the full output is st.log in the kept work folder ...]\n" + s[len(s)-limit/2:]
	}
	return s
}

// summaryLine returns the "Test cases:" line of the summary and the next one.
func summaryLine(s string) string {
	i := strings.Index(s, "Test cases:")
	if i < 0 {
		return "(no summary)"
	}
	lines := strings.SplitN(s[i:], "\n", 3)
	if len(lines) < 2 {
		return strings.TrimSpace(lines[0])
	}
	return strings.TrimSpace(lines[0]) + " " + strings.TrimSpace(lines[1])
}

// shellJoin quotes args for a POSIX shell; a "$VAR" argument stays
// expandable.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		switch {
		case strings.Contains(a, "$"):
			q[i] = `"` + a + `"`
		case a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@") == "":
			q[i] = a
		default:
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
