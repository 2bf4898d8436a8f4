// Package testenv tells tests where the real engines listen.
//
// The engines (PostgreSQL, Redis, ClickHouse, Kafka) are real processes on
// loopback, started by platform/testenv/engines.sh, which writes their
// addresses to the environment variables named below. A test that needs an
// engine asks for its URL here: without it the test is skipped on a
// developer's machine and fails under CI=true, so CI never silently skips an
// engine.
//
// It imports nothing of Vigil, and only tests import it.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Environment variables holding the engines' addresses for tests.
const (
	Postgres   = "VIGIL_TEST_POSTGRES_URL"
	Redis      = "VIGIL_TEST_REDIS_URL"
	ClickHouse = "VIGIL_TEST_CLICKHOUSE_URL"
	Kafka      = "VIGIL_TEST_KAFKA_BROKERS"
	// Schemathesis is the path of Schemathesis's `st` executable, installed
	// by engines.sh up for the OpenAPI-driven API test.
	Schemathesis = "VIGIL_TEST_SCHEMATHESIS"
	// SMTPDPython is a Python with aiosmtpd, installed by engines.sh up,
	// that the e-mail tests run a real SMTP server with.
	SMTPDPython = "VIGIL_TEST_SMTPD_PYTHON"
	// ModelServerPython is a Python with scikit-learn, installed by
	// engines.sh up, that the served-model explanation tests run a model
	// server with (explanation/modelserver/testdata/server.py).
	ModelServerPython = "VIGIL_TEST_MODELSERVER_PYTHON"
	// OTelPython is a Python with the OpenTelemetry SDK, its OTLP/HTTP
	// exporter and OpenInference's conventions, installed by engines.sh up,
	// that the OTLP receiver's test exports spans with.
	OTelPython = "VIGIL_TEST_OTEL_PYTHON"
	// ExplainPython is a Python with shap, lime, XGBoost, LightGBM and
	// scikit-learn, installed by engines.sh explain (not by up: only
	// benchmarks and the golden scripts need it), that BenchmarkExplain
	// times the reference libraries with.
	ExplainPython = "VIGIL_TEST_EXPLAIN_PYTHON"
	// GitHubOpenAPI is the path of GitHub's published OpenAPI description
	// (api.github.com.json of the npm package @octokit/openapi), installed
	// by engines.sh up, that the tests' fake code host validates against.
	GitHubOpenAPI = "VIGIL_TEST_GITHUB_OPENAPI"
	// SDKPython is a Python with what the Python SDK's tests need (httpx,
	// pandas, pyarrow, pytest, mypy, hatchling), installed by engines.sh up.
	SDKPython = "VIGIL_TEST_SDK_PYTHON"
	// ReportsPython is a Python with openpyxl, installed by engines.sh up,
	// that the report test reads the Excel workbook with.
	ReportsPython = "VIGIL_TEST_REPORTS_PYTHON"
	// Helm is the path of a helm executable, built from its Go module by
	// engines.sh up, that deploy's tests lint and render the chart with.
	Helm = "VIGIL_TEST_HELM"
	// Gitea is the path of a Gitea binary built by engines.sh up (in the
	// background: it may not exist yet when the tests start, see
	// GiteaBuildLog), and GiteaStatic the folder of its options/ and
	// templates/, for the code-host test against a real forge.
	Gitea       = "VIGIL_TEST_GITEA"
	GiteaStatic = "VIGIL_TEST_GITEA_STATIC"
	// GiteaBuildLog is the log of that build; its last line says
	// "gitea: built" or "gitea: build failed" once it ends.
	GiteaBuildLog = "VIGIL_TEST_GITEA_BUILD_LOG"
	// SSHD is the path of Debian's OpenSSH server (/usr/sbin/sshd, package
	// openssh-server) that the SFTP delivery tests run on loopback.
	SSHD = "VIGIL_TEST_SSHD"
	// VersityGW is the path of the Versity S3 Gateway (versitygw, built
	// from its Go module by engines.sh up), the S3-compatible server on a
	// posix folder that the S3 delivery tests run on loopback.
	VersityGW = "VIGIL_TEST_VERSITYGW"
	// Chromium is the path of Debian's Chromium (/usr/bin/chromium,
	// package chromium) that the web dashboard's browser test drives
	// headless.
	Chromium = "VIGIL_TEST_CHROMIUM"
)

// URL returns the value of the environment variable name, one of the
// constants above, and logs which engine the calling test runs on. When the
// variable is unset the test is skipped, or fails when CI=true.
func URL(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Missing(t, name+" is unset: start the engines with platform/testenv/engines.sh up")
	}
	t.Logf("engine: %s=%s", name, v)
	return v
}

// Tool returns the path of the program name on PATH (what installs it in
// package), as URL returns an engine's: when it is missing the test is
// skipped, or fails when CI=true.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, fmt.Sprintf("%s (%s, installed by .ci/run) is missing: %v", name, pkg, err))
	}
	return path
}

// Missing skips t for want of what msg names, or fails it when CI=true:
// CI runs every test on what it needs.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: this test must run)")
	}
	t.Skip(msg)
}
