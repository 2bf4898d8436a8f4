package monitorfile

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	f := func(pattern, name string, want bool) {
		t.Helper()
		if got := Match(pattern, name); got != want {
			t.Errorf("Match(%q, %q): got %v, want %v", pattern, name, got, want)
		}
	}
	f("**/*.pkl", "model.pkl", true)
	f("**/*.pkl", "models/churn/model.pkl", true)
	f("**/*.pkl", "models/churn/model.pt", false)
	f("models/*.pkl", "models/a.pkl", true)
	f("models/*.pkl", "models/sub/a.pkl", false)
	f("models/**/*.pt", "models/a.pt", true)
	f("models/**/*.pt", "other/a.pt", false)
	f("models/[ab].pt", "models/b.pt", true)
	f("[x", "[x", false)
}

func TestParse(t *testing.T) {
	good := `version: "1.0"
github:
  auto_register: true
models:
  - path: "models/*.pkl"
    framework: sklearn
    model_type: classification
    features: [age, tenure]
    target_variable: churned
    tags: [churn]
`
	f, problems := Parse([]byte(good))
	if len(problems) != 0 || len(f.Models) != 1 || f.Models[0].TargetVariable != "churned" || f.Codehost.AutoRegister == nil || !*f.Codehost.AutoRegister {
		t.Fatalf("got %+v %v, want the file read without problems", f, problems)
	}
	if _, p := Parse([]byte("version: \"1.0\"\nmodels:\n  - path: a.pkl\n    framework: sklearn\n")); len(p) != 0 {
		t.Errorf("the smallest valid file: got %v", p)
	}
	bad := func(text, want string) {
		t.Helper()
		_, p := Parse([]byte(text))
		if !strings.Contains(strings.Join(p, "; "), want) {
			t.Errorf("%q: got problems %v, want one saying %q", text, p, want)
		}
	}
	bad("version: \"2.0\"\nmodels:\n  - path: a.pkl\n    framework: sklearn\n", "version must be")
	bad("version: 1.0\nmodels: []\n", "at least one model")
	bad("version: \"1.0\"\nmodels:\n  - framework: sklearn\n", "models[0].path is required")
	bad("version: \"1.0\"\nmodels:\n  - path: a.pkl\n", "models[0].framework is required")
	bad("version: \"1.0\"\nmodels:\n  - path: a.pkl\n    framework: caffe\n", "framework must be one of")
	bad("version: [\nmodels", "not valid YAML")
	bad("models: 3\n", "not valid YAML")
	bad(strings.Repeat("#", maxSize+1), "larger than")
}

// FuzzParse: no file crashes the parser.
func FuzzParse(f *testing.F) {
	f.Add([]byte("version: \"1.0\"\nmodels:\n  - path: a.pkl\n    framework: sklearn\n"))
	f.Add([]byte("&a [*a, *a]"))
	f.Fuzz(func(t *testing.T, b []byte) { Parse(b) })
}
