package codehost

import (
	"path"
	"regexp"
	"strings"

	"github.com/vigilhq/vigil/platform/web"
)

// Permissions of the code-host routes.
const (
	PermissionRead  = "integrations:read"
	PermissionWrite = "integrations:write"
)

// The one rule for names, stated here and as the same patterns in
// schemas/openapi.json (TestNamePatternsMatchDocument holds them equal).
const (
	// OwnerPattern: a user or organization login of the code host.
	OwnerPattern = `^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`
	// NamePattern: a repository name, not starting with a dot.
	NamePattern = `^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$`
	// BranchPattern: a branch name: letters, digits and . _ / -, not
	// starting with . / or -.
	BranchPattern = `^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$`
)

var (
	ownerRE  = regexp.MustCompile(OwnerPattern)
	nameRE   = regexp.MustCompile(NamePattern)
	branchRE = regexp.MustCompile(BranchPattern)
)

// Limits of the tracking options.
const (
	maxBranches = 100
	maxPatterns = 50
	maxPattern  = 255
)

// DefaultModelPatterns are the model path patterns of spec 2.
var DefaultModelPatterns = []string{"**/*.pkl", "**/*.h5", "**/*.pt", "**/*.onnx", "**/*.safetensors"}

// ValidOwner, ValidName and ValidBranch report whether s follows
// OwnerPattern, NamePattern and BranchPattern.
func ValidOwner(s string) bool { return ownerRE.MatchString(s) }

// ValidName reports whether s follows NamePattern.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// ValidBranch reports whether s follows BranchPattern.
func ValidBranch(s string) bool { return branchRE.MatchString(s) }

// CheckBranches records the problems of a list of branch names.
func CheckBranches(v *web.Problems, field string, branches []string) {
	if len(branches) > maxBranches {
		v.Add(field, "must hold at most 100 branches")
		return
	}
	for _, b := range branches {
		if !branchRE.MatchString(b) {
			v.Add(field, "each must match "+BranchPattern)
			return
		}
	}
}

// CheckPatterns records the problems of a list of path globs.
func CheckPatterns(v *web.Problems, field string, patterns []string) {
	if len(patterns) > maxPatterns {
		v.Add(field, "must hold at most 50 patterns")
		return
	}
	for _, p := range patterns {
		if p == "" || len(p) > maxPattern || strings.ContainsRune(p, 0) {
			v.Add(field, "each must be a glob of 1 to 255 characters")
			return
		}
		if _, err := path.Match(strings.ReplaceAll(p, "**/", ""), ""); err != nil {
			v.Add(field, "each must be a valid glob (* ? [..] and **/)")
			return
		}
	}
}
