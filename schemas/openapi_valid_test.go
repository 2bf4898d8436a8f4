package schemas_test

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/schemas"
)

// methods are the operation fields of an OpenAPI path item.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// TestOpenAPIValid checks the embedded OpenAPI document's structure: that it
// is OpenAPI 3.1, that every operation has a unique operationId, at least
// one response and an x-permission, that every path template parameter is
// declared, and that every $ref resolves inside the document. Which routes
// it lists is checked against the route tables elsewhere.
func TestOpenAPIValid(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", v)
	}
	info, _ := doc["info"].(map[string]any)
	if s, _ := info["title"].(string); s == "" {
		t.Error("info.title is missing")
	}
	if s, _ := info["version"].(string); s == "" {
		t.Error("info.version is missing")
	}

	paths, _ := doc["paths"].(map[string]any)
	if len(paths) == 0 {
		t.Fatal("paths is empty")
	}
	ids := map[string]string{}
	for _, path := range sortedKeys(paths) {
		item, ok := paths[path].(map[string]any)
		if !ok {
			t.Errorf("%s: path item is not an object", path)
			continue
		}
		if !strings.HasPrefix(path, "/") {
			t.Errorf("%s: path does not start with /", path)
		}
		if strings.Contains(path, "/:") {
			t.Errorf("%s: Fiber parameter syntax; write /{name}", path)
		}
		n := 0
		for _, m := range methods {
			o, ok := item[m]
			if !ok {
				continue
			}
			n++
			where := strings.ToUpper(m) + " " + path
			op, ok := o.(map[string]any)
			if !ok {
				t.Errorf("%s: operation is not an object", where)
				continue
			}
			id, _ := op["operationId"].(string)
			switch {
			case id == "":
				t.Errorf("%s: no operationId", where)
			case ids[id] != "":
				t.Errorf("%s: operationId %q is used by %s too", where, id, ids[id])
			default:
				ids[id] = where
			}
			responses, _ := op["responses"].(map[string]any)
			if len(responses) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for code := range responses {
				if !validStatus(code) {
					t.Errorf("%s: response key %q is not a status code", where, code)
				}
			}
			if _, ok := op["x-permission"].(string); !ok {
				t.Errorf("%s: no x-permission (use \"\" for none)", where)
			}
			checkPathParams(t, doc, where, path, item, op)
		}
		if n == 0 {
			t.Errorf("%s: no operations", path)
		}
	}

	walkRefs(doc, "#", func(at, ref string) {
		if _, err := resolve(doc, ref); err != "" {
			t.Errorf("%s: $ref %q: %s", at, ref, err)
		}
	})

	schemes, _ := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	checkSecurity := func(where string, v any) {
		reqs, _ := v.([]any)
		for _, r := range reqs {
			for name := range r.(map[string]any) {
				if _, ok := schemes[name]; !ok {
					t.Errorf("%s: security scheme %q is not in components.securitySchemes", where, name)
				}
			}
		}
	}
	checkSecurity("security", doc["security"])
	for path, item := range paths {
		for _, m := range methods {
			if op, ok := item.(map[string]any)[m].(map[string]any); ok {
				checkSecurity(strings.ToUpper(m)+" "+path, op["security"])
			}
		}
	}
}

var templateParam = regexp.MustCompile(`\{([^{}]+)\}`)

// checkPathParams checks that every {name} in path is declared as a
// required path parameter of the path item or the operation, and that no
// path parameter is declared that the path lacks.
func checkPathParams(t *testing.T, doc map[string]any, where, path string, item, op map[string]any) {
	t.Helper()
	declared := map[string]bool{}
	for _, list := range []any{item["parameters"], op["parameters"]} {
		params, _ := list.([]any)
		for _, p := range params {
			pm, _ := p.(map[string]any)
			if ref, ok := pm["$ref"].(string); ok {
				v, err := resolve(doc, ref)
				if err != "" {
					continue // reported by the $ref walk
				}
				pm, _ = v.(map[string]any)
			}
			if pm["in"] != "path" {
				continue
			}
			name, _ := pm["name"].(string)
			if pm["required"] != true {
				t.Errorf("%s: path parameter %q is not required", where, name)
			}
			declared[name] = true
		}
	}
	inPath := map[string]bool{}
	for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
		inPath[m[1]] = true
		if !declared[m[1]] {
			t.Errorf("%s: path parameter %q is not declared", where, m[1])
		}
	}
	for name := range declared {
		if !inPath[name] {
			t.Errorf("%s: declares path parameter %q that the path lacks", where, name)
		}
	}
}

// walkRefs calls fn with the location and value of every $ref under v.
func walkRefs(v any, at string, fn func(at, ref string)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if k == "$ref" {
				if ref, ok := v[k].(string); ok {
					fn(at, ref)
					continue
				}
			}
			walkRefs(v[k], at+"/"+escape(k), fn)
		}
	case []any:
		for i, e := range v {
			walkRefs(e, at+"/"+strconv.Itoa(i), fn)
		}
	}
}

// resolve follows a local JSON-pointer reference (#/a/b) inside doc; the
// problem is empty when it resolves.
func resolve(doc map[string]any, ref string) (any, string) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, "not a reference inside the document"
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, "no " + tok
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, "no index " + tok
			}
			cur = c[i]
		default:
			return nil, "cannot descend into " + tok
		}
	}
	return cur, ""
}

func escape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

func validStatus(code string) bool {
	if code == "default" || (len(code) == 3 && code[0] >= '1' && code[0] <= '5' && strings.HasSuffix(code, "XX")) {
		return true
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 100 && n <= 599
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
