package codehost

import (
	"encoding/json"
	"os"
	"testing"

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
	f("owner", s["CodehostTrackRequest"].Properties["owner"].Pattern, OwnerPattern)
	f("name", s["CodehostTrackRequest"].Properties["name"].Pattern, NamePattern)
	f("branch", s["CodehostBranchName"].Pattern, BranchPattern)
}

func TestNames(t *testing.T) {
	f := func(re interface{ MatchString(string) bool }, s string, want bool) {
		t.Helper()
		if got := re.MatchString(s); got != want {
			t.Errorf("%q: got %v, want %v", s, got, want)
		}
	}
	f(ownerRE, "octo-cat", true)
	f(ownerRE, "-octo", false)
	f(ownerRE, "o"+string(make([]byte, 39)), false)
	f(nameRE, "models.v2", true)
	f(nameRE, ".github", false)
	f(nameRE, "a/b", false)
	f(branchRE, "release/1.0", true)
	f(branchRE, "/main", false)
	f(branchRE, "-x", false)
	var v web.Problems
	checkPatterns(&v, "p", []string{"**/*.pkl", "models/[ab].pt"})
	if err := v.Err(); err != nil {
		t.Errorf("valid globs: got %v", err)
	}
	checkPatterns(&v, "p", []string{"[x"})
	if v.Err() == nil {
		t.Error("an unclosed class: got no problem, want one")
	}
}

// TestAutomationPatternsMatchDocument: the automation bodies' patterns are
// the server's.
func TestAutomationPatternsMatchDocument(t *testing.T) {
	s := docSchemas(t)
	f := func(schema, prop, want string) {
		t.Helper()
		if got := s[schema].Properties[prop].Pattern; got != want {
			t.Errorf("%s.%s: got document pattern %q, want the server's %q", schema, prop, got, want)
		}
	}
	f("CodehostRequiredCheck", "check_context", ContextPattern)
	f("CodehostRunningComment", "comment_identifier", IdentifierPattern)
	for _, name := range []string{"CodehostValidationCheck", "CodehostComparisonCheck"} {
		f(name, "head_sha", SHAPattern)
	}
	for _, name := range []string{"CodehostValidationCheck", "CodehostComparisonCheck", "CodehostValidationComment", "CodehostComparisonComment"} {
		f(name, "dashboard_url", DashboardPattern)
	}
}
