package app

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/schemas"
)

// TestOpenAPICoversRoutes fails when a registered route is missing from the
// OpenAPI document or a documented operation is not registered, and when
// the document's permission or public marking disagrees with the route's.
func TestOpenAPICoversRoutes(t *testing.T) {
	type operation struct {
		Permission *string           `json:"x-permission"`
		Security   []json.RawMessage `json:"security"`
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	documented := map[string]operation{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if !slices.Contains([]string{"get", "put", "post", "delete", "patch", "head", "options"}, method) {
				continue
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			documented[strings.ToUpper(method)+" "+path] = op
		}
	}
	registered := map[string]bool{}
	for _, r := range allRoutes() {
		op := r.Method + " " + r.OpenAPIPath()
		registered[op] = true
		d, ok := documented[op]
		if !ok {
			t.Errorf("route %s is registered but missing from schemas/openapi.json", op)
			continue
		}
		if d.Permission == nil || *d.Permission != r.Permission {
			t.Errorf("%s: got x-permission %v, want %q", op, d.Permission, r.Permission)
		}
		if public := d.Security != nil && len(d.Security) == 0; public != r.Public {
			t.Errorf("%s: got public (security: []) %v, want %v", op, public, r.Public)
		}
	}
	for op := range documented {
		if !registered[op] {
			t.Errorf("%s is documented in schemas/openapi.json but not registered", op)
		}
	}
}

// TestOpenAPIServed checks the document is served as JSON at
// /api/v1/openapi.json without authentication.
func TestOpenAPIServed(t *testing.T) {
	s := start(t, testConfig(t))
	r := s.do("GET", "/openapi.json", "", nil).want(t, 200)
	if v, _ := r.at("openapi").(string); !strings.HasPrefix(v, "3.1") {
		t.Fatalf("got openapi %q, want 3.1.x", v)
	}
}

// TestOpenAPIRequestBodies holds the document's request bodies to what
// the shared decoder does: it refuses a property an object does not name,
// so every object with properties declares additionalProperties (false, or
// the schema of its free-form members); and it reads a JSON null as an
// absent field, so every optional property allows null, unless it is
// marked x-null-refused (a PATCH field that cannot be cleared: null
// answers 422 naming it).
func TestOpenAPIRequestBodies(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	seen := map[string]bool{}
	var walk func(where string, s any)
	walk = func(where string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !seen[name] {
				seen[name] = true
				walk(name, components[name])
			}
		}
		if props, ok := m["properties"].(map[string]any); ok {
			// An allOf member adding to an object (no type of its own) is
			// not the object.
			if _, ok := m["additionalProperties"]; !ok && m["type"] != nil {
				t.Errorf("%s: properties without additionalProperties; the server refuses any other", where)
			}
			required, _ := m["required"].([]any)
			for name, p := range props {
				refused, _ := p.(map[string]any)["x-null-refused"].(bool)
				if !slices.Contains(required, any(name)) && !allowsNull(p) && !refused {
					t.Errorf("%s.%s: optional and not nullable; the server reads null as absent", where, name)
				}
				walk(where+"."+name, p)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			walk(where+"["+k+"]", m[k])
		}
		for _, k := range []string{"allOf", "oneOf", "anyOf"} {
			list, _ := m[k].([]any)
			for _, v := range list {
				walk(where, v)
			}
		}
	}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			o, _ := op.(map[string]any) // or the path's parameters
			body, ok := o["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			for _, media := range body["content"].(map[string]any) {
				walk(strings.ToUpper(method)+" "+path, media.(map[string]any)["schema"])
			}
		}
	}
}

// allowsNull reports whether the schema s takes null: its type names null,
// one of its alternatives does, or it constrains nothing.
func allowsNull(s any) bool {
	m, _ := s.(map[string]any)
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, _ := m[k].([]any)
		if slices.ContainsFunc(list, allowsNull) {
			return true
		}
	}
	_, ref := m["$ref"]
	_, all := m["allOf"]
	return !ref && !all && m["enum"] == nil && m["const"] == nil
}

// TestOpenAPIFixedPaths walks the document: a fixed path that a sibling's
// parameter also matches (/explanations/bulk beside /explanations/{id})
// answers every method it does not list with 405 METHOD_NOT_ALLOWED and an
// Allow of exactly its own methods, never the sibling's handler.
func TestOpenAPIFixedPaths(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	s := start(t, testConfig(t))
	token := s.admin()
	checked := 0
	for path, item := range doc.Paths {
		if !hasParamSibling(path, doc.Paths) {
			continue
		}
		var own []string
		for m := range item {
			if slices.Contains([]string{"get", "put", "post", "delete", "patch"}, m) {
				own = append(own, strings.ToUpper(m))
			}
		}
		slices.Sort(own)
		for _, m := range []string{"GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"} {
			if slices.Contains(own, m) {
				continue
			}
			checked++
			r := s.do(m, path, token, nil)
			if r.status != http.StatusMethodNotAllowed || r.str("error.code") != "METHOD_NOT_ALLOWED" {
				t.Errorf("%s %s: got %d %s, want 405 METHOD_NOT_ALLOWED", m, path, r.status, r.raw)
				continue
			}
			allow := strings.Split(r.header.Get("Allow"), ", ")
			slices.Sort(allow)
			if !slices.Equal(allow, own) {
				t.Errorf("%s %s: got Allow %q, want exactly %v", m, path, r.header.Get("Allow"), own)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no fixed path with a parameter sibling in the document, want some")
	}
}

// hasParamSibling reports whether another path of paths has a {parameter}
// segment where path has a literal one, and the same segments elsewhere.
func hasParamSibling(path string, paths map[string]map[string]json.RawMessage) bool {
	fs := strings.Split(path, "/")
	isParam := func(seg string) bool { return strings.HasPrefix(seg, "{") }
	for other := range paths {
		ps := strings.Split(other, "/")
		if len(ps) != len(fs) || other == path {
			continue
		}
		wider, same := false, true
		for i := range ps {
			switch {
			case isParam(ps[i]) && !isParam(fs[i]):
				wider = true
			case isParam(ps[i]) && isParam(fs[i]), ps[i] == fs[i]:
			default:
				same = false
			}
		}
		if wider && same {
			return true
		}
	}
	return false
}
