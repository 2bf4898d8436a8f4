package vigil_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function outside the tests may run, its
// body counted from the line of its opening brace to that of its closing
// one.
const maxFuncLines = 80

// longFuncs are the functions allowed past maxFuncLines, each with the
// reason it is: none since the composition root became one module per
// concern (app/concerns.go).
var longFuncs = map[string]string{}

// funcLength is one function of the tree and the lines its body spans.
type funcLength struct {
	name  string // package directory, then receiver and name: "app.(*App).initAPI"
	pos   string // file:line of the declaration
	lines int
}

// funcLengths lists every function and method declared in the tree's
// non-test Go files.
func funcLengths(t *testing.T) []funcLength {
	t.Helper()
	var out []funcLength
	fset := token.NewFileSet()
	for _, path := range goFiles(t) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			out = append(out, funcLength{
				name:  pkg + "." + funcName(fd),
				pos:   fset.Position(fd.Pos()).String(),
				lines: fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Body.Lbrace).Line + 1,
			})
		}
	}
	return out
}

// funcName names a declaration as the Go tools do: "f", "T.m" or "(*T).m".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star, ptr := typ.(*ast.StarExpr)
	if ptr {
		typ = star.X
	}
	for {
		switch x := typ.(type) {
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		}
		break
	}
	recv := typ.(*ast.Ident).Name
	if ptr {
		recv = "(*" + recv + ")"
	}
	return recv + "." + fd.Name.Name
}

// TestFunctionLength: no function outside the tests runs past
// maxFuncLines, but those longFuncs allows, and each of those still does
// (so that the table shrinks when one is split).
func TestFunctionLength(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range funcLengths(t) {
		if f.lines <= maxFuncLines {
			continue
		}
		if _, ok := longFuncs[f.name]; ok {
			seen[f.name] = true
			continue
		}
		t.Errorf("%s: %s is %d lines, want at most %d: split it into named steps", f.pos, f.name, f.lines, maxFuncLines)
	}
	for name, reason := range longFuncs {
		if !seen[name] {
			t.Errorf("%s is allowed past %d lines (%s) but is no longer: remove it from longFuncs", name, maxFuncLines, reason)
		}
	}
}
