package identity

import (
	"slices"
	"strings"
)

// Resources that permissions name, as resource:action with action read,
// write or configure. "*" stands for every resource or action.
var Resources = []string{
	"models", "predictions", "metrics", "drift", "explanations", "bias", "llm",
	"alerts", "dashboard", "governance", "risk", "trust", "reports", "integrations",
	"webhooks", "users", "roles", "api_keys",
}

// Actions that permissions name. configure (a resource's settings, such
// as risk:configure for the risk register's scoring) is in no built-in role
// but admin's *:*, and no read or write scope of an API key covers it.
// review is a vote on a governance review board (governance:review): the
// editor role holds it beside admin's *:*, and an API key needs the scope
// that names it, as for configure.
var Actions = []string{"read", "write", "configure", "review"}

// editorExtras are the permissions the editor role holds beyond read and
// write of the non-admin resources.
var editorExtras = []string{"governance:review"}

// adminResources are managed by administrators; an API key reaches them
// only through a scope that names them.
var adminResources = []string{"users", "roles", "api_keys"}

// Built-in role names.
const (
	RoleAdmin  = "admin"
	RoleEditor = "editor"
	RoleViewer = "viewer"
)

// BuiltInRoles returns the roles every organization has.
func BuiltInRoles() []Role {
	var read, write []string
	for _, r := range Resources {
		if slices.Contains(adminResources, r) {
			continue
		}
		read = append(read, r+":read")
		write = append(write, r+":read", r+":write")
		for _, p := range editorExtras {
			if strings.HasPrefix(p, r+":") {
				write = append(write, p)
			}
		}
	}
	return []Role{
		{Name: RoleAdmin, Description: "Everything, including users, roles and API keys.", Permissions: []string{"*:*"}, BuiltIn: true},
		{Name: RoleEditor, Description: "Reads and changes monitoring and governance data; no user, role or key management.", Permissions: write, BuiltIn: true},
		{Name: RoleViewer, Description: "Reads monitoring and governance data.", Permissions: read, BuiltIn: true},
	}
}

// ValidPermission reports whether p is resource:action with a known
// resource (or *) and action (or *).
func ValidPermission(p string) bool {
	res, act, ok := strings.Cut(p, ":")
	return ok && (res == "*" || slices.Contains(Resources, res)) && (act == "*" || slices.Contains(Actions, act))
}

// grants reports whether the granted permission covers want.
func grants(granted, want string) bool {
	gr, ga, _ := strings.Cut(granted, ":")
	wr, wa, _ := strings.Cut(want, ":")
	return (gr == "*" || gr == wr) && (ga == "*" || ga == wa)
}

// anyGrants reports whether one of granted covers want.
func anyGrants(granted []string, want string) bool {
	for _, g := range granted {
		if grants(g, want) {
			return true
		}
	}
	return false
}

// Key scopes. A scope is read, write, or one resource:action permission.
const (
	// ScopeRead allows every read of non-admin resources.
	ScopeRead = "read"
	// ScopeWrite allows every read and write of non-admin resources.
	ScopeWrite = "write"
)

// ValidScope reports whether s is a scope a key may carry.
func ValidScope(s string) bool {
	return s == ScopeRead || s == ScopeWrite || (ValidPermission(s) && !strings.Contains(s, "*"))
}

// scopeAllows reports whether a key's scopes allow want.
func scopeAllows(scopes []string, want string) bool {
	res, act, _ := strings.Cut(want, ":")
	admin := slices.Contains(adminResources, res)
	for _, s := range scopes {
		switch {
		case s == want:
			return true
		case s == ScopeWrite && !admin && (act == "read" || act == "write"):
			return true
		case s == ScopeRead && !admin && act == "read":
			return true
		}
	}
	return false
}
