package app

import (
	"encoding/json"
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
