package deploy_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"go.yaml.in/yaml/v3"

	"github.com/vigilhq/vigil/platform/config"
)

// testedClickHouse is the ClickHouse release CI tests Vigil on
// (platform/testenv/engines.sh).
const testedClickHouse = "18.16"

// composeFile is the part of compose.yaml the test reads.
type composeFile struct {
	Services map[string]struct {
		Image       string                       `yaml:"image"`
		Command     []string                     `yaml:"command"`
		Environment map[string]string            `yaml:"environment"`
		DependsOn   map[string]map[string]string `yaml:"depends_on"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// TestCompose reads deploy/compose.yaml as compose would (anchors and
// merge keys included): both roles as services of their own, only
// variables Vigil reads, secrets required from the operator's
// environment, every dependency healthy before Vigil starts, every image
// pinned.
func TestCompose(t *testing.T) {
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v] = true
	}
	required := regexp.MustCompile(`^\$\{[A-Z_]+:\?.+\}$`)
	var roles []string
	for name, s := range c.Services {
		if tag := s.Image[strings.LastIndex(s.Image, ":")+1:]; !strings.Contains(s.Image, ":") || tag == "latest" {
			t.Errorf("%s: got image %q, want a pinned tag", name, s.Image)
		}
		if strings.HasPrefix(s.Image, "yandex/") {
			t.Errorf("%s: got image %q, want clickhouse/clickhouse-server (the yandex/ name is deprecated)", name, s.Image)
		}
		for dep, cond := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("%s depends on %s: got no such service", name, dep)
			} else if cond["condition"] == "service_healthy" && c.Services[dep].Healthcheck == nil {
				t.Errorf("%s waits for %s to be healthy: got no healthcheck on it", name, dep)
			}
		}
		if !strings.HasPrefix(name, "vigil-") {
			continue
		}
		if len(s.Command) != 3 || s.Command[0] != "serve" || s.Command[1] != "--roles" {
			t.Errorf("%s: got command %q, want serve --roles <role>", name, s.Command)
			continue
		}
		roles = append(roles, s.Command[2])
		for k, v := range s.Environment {
			if !known[k] {
				t.Errorf("%s: %s is not a variable vigil serve reads", name, k)
			}
			if (k == "VIGIL_MASTER_KEY" || k == "VIGIL_ADMIN_PASSWORD") && !required.MatchString(v) {
				t.Errorf("%s: %s=%q, want it required from the operator's environment (${VAR:?why})", name, k, v)
			}
		}
		// A current ClickHouse, with the setting defaults of the version
		// CI tests on.
		if opts, err := clickhouse.ParseDSN(s.Environment["VIGIL_CLICKHOUSE_URL"]); err != nil || opts.Settings["compatibility"] != testedClickHouse {
			t.Errorf("%s: VIGIL_CLICKHOUSE_URL gives settings %v (%v), want compatibility %s", name, opts.Settings, err, testedClickHouse)
		}
		for _, k := range []string{"VIGIL_POSTGRES_URL", "VIGIL_KAFKA_BROKERS", "VIGIL_CLICKHOUSE_URL", "VIGIL_REDIS_URL"} {
			if s.Environment[k] == "" {
				t.Errorf("%s: got no %s, want the full stack", name, k)
			}
		}
	}
	slices.Sort(roles)
	if want := config.AllRoles; !slices.Equal(roles, slices.Sorted(slices.Values(want))) {
		t.Errorf("got vigil services with roles %v, want one per role %v", roles, want)
	}
}
