package app

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/modules"
)

var updateModules = flag.Bool("update-modules", false, "rewrite testdata/modules.txt from the registered modules")

// TestModuleGraph reads the process's modules as data: every module with
// the modules it needs, and the start order of each role, in
// testdata/modules.txt (-update-modules rewrites it). A change to the wiring shows
// there, for review; the file also says, in one step, which module serves
// a concern and what it stands on.
func TestModuleGraph(t *testing.T) {
	var m modules.Manager
	(&App{}).register(&m)
	var b strings.Builder
	b.WriteString("# module: the modules it needs\n")
	for _, n := range m.Needs() {
		fmt.Fprintf(&b, "%s: %s\n", n.Module, strings.Join(n.Needs, ", "))
	}
	for _, role := range config.AllRoles {
		order, err := m.Order(role)
		if err != nil {
			t.Fatalf("role %s: %v", role, err)
		}
		fmt.Fprintf(&b, "\n# role %s starts: %s\n", role, strings.Join(order, ", "))
	}
	const golden = "testdata/modules.txt"
	if *updateModules {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Fatalf("got the module graph\n%s\nwant %s (go test -run TestModuleGraph ./app -update-modules rewrites it)", got, golden)
	}
	for _, c := range concerns {
		for _, need := range c.needs {
			if need == config.RoleAPI || need == config.RoleProcessor {
				t.Errorf("concern %s needs the role %s, want only backends and concerns", c.name, need)
			}
		}
	}
}
