package codehost_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/automation"
	"github.com/vigilhq/vigil/platform/web"
)

// docSchema is what the pattern tests read of a component schema.
type docSchema struct {
	Pattern    string `json:"pattern"`
	Properties map[string]struct {
		Pattern string `json:"pattern"`
	} `json:"properties"`
}

// docSchemas reads the document's component schemas.
func docSchemas(t *testing.T) map[string]docSchema {
	t.Helper()
	raw, err := os.ReadFile("../../schemas/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]docSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// TestNamePatternsMatchDocument: the document states the server's one rule
// for owner, repository and branch names.
func TestNamePatternsMatchDocument(t *testing.T) {
	s := docSchemas(t)
	f := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got document pattern %q, want the server's %q", what, got, want)
		}
	}
	f("owner", s["CodehostTrackRequest"].Properties["owner"].Pattern, codehost.OwnerPattern)
	f("name", s["CodehostTrackRequest"].Properties["name"].Pattern, codehost.NamePattern)
	f("branch", s["CodehostBranchName"].Pattern, codehost.BranchPattern)
}

func TestNames(t *testing.T) {
	f := func(valid func(string) bool, s string, want bool) {
		t.Helper()
		if got := valid(s); got != want {
			t.Errorf("%q: got %v, want %v", s, got, want)
		}
	}
	f(codehost.ValidOwner, "octo-cat", true)
	f(codehost.ValidOwner, "-octo", false)
	f(codehost.ValidOwner, "o"+string(make([]byte, 39)), false)
	f(codehost.ValidName, "models.v2", true)
	f(codehost.ValidName, ".github", false)
	f(codehost.ValidName, "a/b", false)
	f(codehost.ValidBranch, "release/1.0", true)
	f(codehost.ValidBranch, "/main", false)
	f(codehost.ValidBranch, "-x", false)
	var v web.Problems
	codehost.CheckPatterns(&v, "p", []string{"**/*.pkl", "models/[ab].pt"})
	if err := v.Err(); err != nil {
		t.Errorf("valid globs: got %v", err)
	}
	codehost.CheckPatterns(&v, "p", []string{"[x"})
	if v.Err() == nil {
		t.Error("an unclosed class: got no problem, want one")
	}
}

// TestAutomationPatternsMatchDocument: the automation bodies' patterns
// (package automation) are the server's.
func TestAutomationPatternsMatchDocument(t *testing.T) {
	s := docSchemas(t)
	f := func(schema, prop, want string) {
		t.Helper()
		if got := s[schema].Properties[prop].Pattern; got != want {
			t.Errorf("%s.%s: got document pattern %q, want the server's %q", schema, prop, got, want)
		}
	}
	f("CodehostRequiredCheck", "check_context", automation.ContextPattern)
	f("CodehostRunningComment", "comment_identifier", automation.IdentifierPattern)
	for _, name := range []string{"CodehostValidationCheck", "CodehostComparisonCheck"} {
		f(name, "head_sha", automation.SHAPattern)
	}
	for _, name := range []string{"CodehostValidationCheck", "CodehostComparisonCheck", "CodehostValidationComment", "CodehostComparisonComment"} {
		f(name, "dashboard_url", automation.DashboardPattern)
	}
}
