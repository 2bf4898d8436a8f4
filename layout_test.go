package vigil_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's root.
const module = "github.com/vigilhq/vigil"

// A room is a group of packages with one job. Data walks ingest -> event
// log -> processors -> stores -> query, and a package may import only the
// rooms listed in its room's may: the contracts it writes or reads, and
// the rooms before it. A contract (the event log's, the analytical
// store's, the store errors) imports neither its engines nor the code that
// uses it; an engine never imports its users; a producer never imports its
// consumers; the maths tree imports nothing of Vigil. ARCHITECTURE.md
// draws the same table.
type room struct {
	name string
	// pkgs are import paths below the module: "x" is the package x alone,
	// "x/..." every package below x.
	pkgs []string
	may  []string
}

// rooms is the table of allowed import directions, upstream first.
var rooms = []room{
	{"maths", []string{"stats/..."}, nil},
	{"schemas", []string{"schemas"}, nil},
	{"web ui", []string{"web"}, nil},
	{"store contract", []string{"store"}, nil},
	{"plumbing", []string{"platform/..."}, []string{"store contract"}},
	{"event log contract", []string{"eventlog", "eventlog/logtest"}, []string{"maths"}},
	{"analytics contract", []string{"analytics", "analytics/analyticstest"},
		[]string{"event log contract", "store contract", "maths"}},
	{"identity", []string{"identity", "identity/..."}, []string{"plumbing", "store contract"}},
	{"registry", []string{"registry", "registry/..."}, []string{"identity", "plumbing", "store contract"}},
	{"governance", []string{"governance", "governance/..."},
		[]string{"event log contract", "analytics contract", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"ingest", []string{"ingest", "ingest/..."},
		[]string{"event log contract", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"integrations", []string{"integrations/..."},
		[]string{"event log contract", "identity", "registry", "plumbing", "store contract"}},
	{"explanation", []string{"explanation", "explanation/..."}, []string{"identity", "registry", "plumbing", "store contract", "maths"}},
	{"event log engines", []string{"eventlog/embeddedlog", "eventlog/kafka", "eventlog/kafka/kafkatest"},
		[]string{"event log contract", "plumbing", "store contract"}},
	{"drift", []string{"drift", "drift/..."}, []string{"identity", "registry", "plumbing", "store contract", "maths"}},
	{"bias", []string{"bias", "bias/..."},
		[]string{"analytics contract", "event log contract", "governance", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"alerts", []string{"alerts", "alerts/..."},
		[]string{"analytics contract", "drift", "bias", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"dashboard", []string{"dashboard"},
		[]string{"analytics contract", "alerts", "drift", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"exports", []string{"report", "report/...", "export", "export/..."},
		[]string{"analytics contract", "alerts", "drift", "bias", "governance", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"processors", []string{"processors", "processors/..."},
		[]string{"analytics contract", "event log contract", "governance", "drift", "alerts", "explanation", "registry", "plumbing", "store contract", "maths"}},
	{"query", []string{"query", "query/..."},
		[]string{"analytics contract", "event log contract", "identity", "registry", "plumbing", "store contract", "maths"}},
	{"toxicity", []string{"toxicity"}, []string{"event log contract", "identity", "plumbing", "store contract"}},
	{"pricing", []string{"pricing"}, []string{"identity", "plumbing", "store contract"}},
	{"store engines", []string{"sqlstore", "sqlstore/..."},
		[]string{"store contract", "identity", "registry", "drift", "bias", "alerts", "governance", "integrations", "explanation", "exports", "pricing", "plumbing", "schemas", "maths"}},
	{"analytics engines", []string{"analytics/sqlite", "analytics/clickhouse"},
		[]string{"analytics contract", "event log contract", "store contract", "plumbing", "schemas", "maths"}},
	{"app", []string{"app"}, []string{"maths", "schemas", "web ui", "store contract", "plumbing", "event log contract",
		"analytics contract", "identity", "registry", "governance", "ingest", "event log engines", "drift", "bias",
		"alerts", "dashboard", "processors", "query", "store engines", "analytics engines", "integrations", "explanation", "exports", "toxicity", "pricing"}},
	{"cmd", []string{"cmd/..."}, []string{"app", "plumbing"}},
	{"sdk", []string{"sdk"}, nil},
	{"deploy", []string{"deploy"}, nil},
	{"benchmarks", []string{"benchmarks"}, []string{"maths", "schemas", "store contract", "plumbing",
		"event log contract", "analytics contract", "identity", "registry", "governance", "ingest",
		"event log engines", "drift", "bias", "alerts", "dashboard", "processors", "query", "store engines", "analytics engines", "app",
		"integrations", "explanation", "exports", "toxicity", "pricing"}},
}

// roomOf returns the room of pkg (a path below the module): the one whose
// pattern matches it most closely.
func roomOf(pkg string) (room, bool) {
	var best room
	bestLen := -1
	for _, r := range rooms {
		for _, p := range r.pkgs {
			base, tree := strings.CutSuffix(p, "/...")
			if pkg == base && !tree || tree && strings.HasPrefix(pkg, base+"/") {
				if len(p) > bestLen {
					best, bestLen = r, len(p)
				}
			}
		}
	}
	return best, bestLen >= 0
}

// goPackage is one package of the tree as its files declare it.
type goPackage struct {
	dir  string // below the module, "/"-separated
	name string
	// imports maps each Vigil package the package's own files and its
	// in-package tests import (below the module) to a file that does.
	imports map[string]string
	// aliased lists the files that import a Vigil package under another
	// name.
	aliased []string
}

// goFiles lists the Go files of the tree, but those under hidden folders,
// testdata and node_modules.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the tree: %v", err)
	}
	return out
}

// packages parses the package clause and imports of every Go file of the
// tree. External test packages (package x_test) are clients of the
// package they test, as the end-to-end tests in app are, and may import
// anything; they are left out.
func packages(t *testing.T) map[string]*goPackage {
	t.Helper()
	out := map[string]*goPackage{}
	fset := token.NewFileSet()
	for _, path := range goFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		name := f.Name.Name
		if strings.HasSuffix(name, "_test") {
			continue
		}
		p := out[dir]
		if p == nil {
			p = &goPackage{dir: dir, name: name, imports: map[string]string{}}
			out[dir] = p
		}
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			below, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			p.imports[below] = path
			if is.Name != nil {
				p.aliased = append(p.aliased, path+" imports "+ip+" as "+is.Name.Name)
			}
		}
	}
	delete(out, ".") // this test
	return out
}

// TestImportDirections holds the table above: every package belongs to a
// room, and imports only its own room and the rooms its room may import.
func TestImportDirections(t *testing.T) {
	for dir, p := range packages(t) {
		from, ok := roomOf(dir)
		if !ok {
			t.Errorf("package %s belongs to no room: add it to the table in layout_test.go and to ARCHITECTURE.md", dir)
			continue
		}
		for imp, file := range p.imports {
			to, ok := roomOf(imp)
			if !ok || to.name == from.name || slices.Contains(from.may, to.name) {
				continue
			}
			may := "nothing of Vigil"
			if len(from.may) > 0 {
				may = strings.Join(from.may, ", ")
			}
			t.Errorf("%s imports %s: %s may not import %s (it may import %s)", file, imp, from.name, to.name, may)
		}
	}
}

// TestRoomsAcyclic: the table itself runs one way, each room importing
// only rooms listed before it, so that no chain of allowed imports leads
// back to where it started.
func TestRoomsAcyclic(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rooms {
		for _, m := range r.may {
			if !seen[m] {
				t.Errorf("room %s may import %s, which is not listed before it", r.name, m)
			}
		}
		seen[r.name] = true
	}
}

// TestPackageNames: no two packages share a name, so that no import needs
// an alias to tell two Vigil packages apart, and none is given one.
func TestPackageNames(t *testing.T) {
	byName := map[string][]string{}
	for dir, p := range packages(t) {
		if p.name != "main" {
			byName[p.name] = append(byName[p.name], dir)
		}
		for _, a := range p.aliased {
			t.Errorf("%s: import Vigil packages by their own name", a)
		}
	}
	for name, dirs := range byName {
		if len(dirs) > 1 {
			slices.Sort(dirs)
			t.Errorf("package name %s is shared by %s", name, strings.Join(dirs, ", "))
		}
	}
}

// TestArchitectureMap: ARCHITECTURE.md names every package of the tree,
// and every package path it names exists.
func TestArchitectureMap(t *testing.T) {
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	pkgs := packages(t)
	for dir := range pkgs {
		if !strings.Contains(doc, "`"+dir+"`") && !strings.Contains(doc, "`"+dir+"/`") {
			t.Errorf("ARCHITECTURE.md does not name package %s (write it as `%s`)", dir, dir)
		}
	}
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9]*(?:/[a-z][a-z0-9]*)*)/?`").FindAllStringSubmatch(doc, -1) {
		path := m[1]
		if !strings.Contains(path, "/") && pkgs[path] == nil {
			continue // a word in backquotes, not a path
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("ARCHITECTURE.md names %s, which does not exist", path)
		}
	}
}

// TestPackageDocs: every package has a doc comment that says what it owns
// and, in a sentence naming what it imports, where it stands in the flow.
func TestPackageDocs(t *testing.T) {
	docs := map[string]string{}
	fset := token.NewFileSet()
	for dir := range packages(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			pf, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if pf.Doc != nil {
				docs[dir] += pf.Doc.Text()
			}
		}
		switch doc := docs[dir]; {
		case doc == "":
			t.Errorf("package %s has no doc comment", dir)
		case !strings.Contains(doc, "import"):
			t.Errorf("package %s: its doc comment does not say what it may import", dir)
		}
	}
}

// maxDocLines bounds a doc.go: what a reader of the package needs (what
// it does, its contract, what it imports); derivations and method notes
// sit on the code they explain.
const maxDocLines = 40

// TestDocLength: no doc.go runs past maxDocLines lines.
func TestDocLength(t *testing.T) {
	for dir := range packages(t) {
		b, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > maxDocLines {
			t.Errorf("%s/doc.go: got %d lines, want at most %d", dir, n, maxDocLines)
		}
	}
}

// TestResultsLength: benchmarks/RESULTS.md holds the current figures, one
// table an area, in at most 150 lines; earlier measurements go to
// benchmarks/history/, each file listed in its README.
func TestResultsLength(t *testing.T) {
	b, err := os.ReadFile("benchmarks/RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 150 {
		t.Errorf("benchmarks/RESULTS.md: got %d lines, want at most 150 (move the older figures to benchmarks/history/)", n)
	}
	index, err := os.ReadFile("benchmarks/history/README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("benchmarks/history/*.md")
	for _, f := range files {
		if name := filepath.Base(f); name != "README.md" && !strings.Contains(string(index), "("+name+")") {
			t.Errorf("benchmarks/history/README.md does not link %s", name)
		}
	}
}
