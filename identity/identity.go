// Package identity is who may do what in Vigil: organizations, users, roles
// with resource:action permissions, API keys and login tokens. It serves
// /auth, /users, /roles and /api-keys, and gives every other API package the
// authenticated Principal of a request.
//
// It imports the platform and the store errors; it must not import the
// event log, the analytical store, an engine or another API package.
package identity

import (
	"context"
	"time"
)

// Organization is a tenant: every record belongs to exactly one.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// User is a person who logs in.
type User struct {
	ID           string    `json:"id"`
	OrgID        string    `json:"organization_id"`
	Username     string    `json:"username"`
	Email        string    `json:"email"`
	FullName     string    `json:"full_name"`
	Role         string    `json:"role"`
	Active       bool      `json:"is_active"`
	PasswordHash string    `json:"-"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Role is a named set of permissions within an organization. The built-in
// roles (admin, editor, viewer) exist in every organization and cannot be
// changed.
type Role struct {
	ID          string    `json:"id"`
	OrgID       string    `json:"-"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Permissions []string  `json:"permissions"`
	BuiltIn     bool      `json:"built_in"`
	CreatedAt   time.Time `json:"created_at"`
}

// APIKey is a key's metadata. The key itself is never stored: only its
// SHA-256 hash and a display hint.
type APIKey struct {
	ID         string     `json:"id"`
	OrgID      string     `json:"-"`
	UserID     string     `json:"created_by"`
	Name       string     `json:"name"`
	Hint       string     `json:"key_hint"`
	Hash       string     `json:"-"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// Store keeps identities. Implementations: sqlstore on SQLite and
// PostgreSQL. Reads of one organization's records take its id and report
// store.ErrNotFound for another organization's; writes are durable when
// they return nil.
type Store interface {
	// Bootstrap creates org with its built-in roles and admin user unless
	// the store was bootstrapped before; it reports whether it did.
	Bootstrap(ctx context.Context, org Organization, roles []Role, admin User) (bool, error)
	// CreateOrganization creates org with its built-in roles and first user.
	CreateOrganization(ctx context.Context, org Organization, roles []Role, first User) error
	// Secret returns the setting name, storing value first if it is unset;
	// every replica gets the same value.
	Secret(ctx context.Context, name, value string) (string, error)
	// ReplaceSecret sets the setting name to value if it still holds old,
	// and reports whether it did: a compare-and-swap between replicas.
	ReplaceSecret(ctx context.Context, name, old, value string) (bool, error)

	CreateUser(ctx context.Context, u User) error
	UserByUsername(ctx context.Context, username string) (User, error)
	User(ctx context.Context, orgID, id string) (User, error)
	Users(ctx context.Context, orgID string, offset, limit int) ([]User, int64, error)
	// SetUserRole gives the user role; store.ErrConflict when that would
	// leave the organization without an active admin.
	SetUserRole(ctx context.Context, orgID, id, role string, at time.Time) (User, error)
	// DeactivateUser marks the user inactive; store.ErrConflict when the
	// user is the organization's last active admin.
	DeactivateUser(ctx context.Context, orgID, id string, at time.Time) error

	CreateRole(ctx context.Context, r Role) error
	Role(ctx context.Context, orgID, id string) (Role, error)
	RoleByName(ctx context.Context, orgID, name string) (Role, error)
	Roles(ctx context.Context, orgID string) ([]Role, error)
	DeleteRole(ctx context.Context, orgID, id string) error

	CreateAPIKey(ctx context.Context, k APIKey) error
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	APIKeys(ctx context.Context, orgID string) ([]APIKey, error)
	// RevokeAPIKey marks the key revoked; revoking twice reports
	// store.ErrNotFound the second time.
	RevokeAPIKey(ctx context.Context, orgID, id string, at time.Time) error
	// TouchAPIKey records a use of the key.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
}
