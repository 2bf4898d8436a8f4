package identity

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
)

// rolesFor returns the built-in roles of a new organization.
func rolesFor(orgID string, now time.Time) []Role {
	roles := BuiltInRoles()
	for i := range roles {
		roles[i].ID = uuid.Must(uuid.NewV7()).String()
		roles[i].OrgID = orgID
		roles[i].CreatedAt = now
	}
	return roles
}

// Bootstrap creates the first organization and its admin on an empty store.
// With an empty password it generates one and logs it once. Later starts,
// of this or any other replica, change nothing.
func Bootstrap(ctx context.Context, s Store, username, password string, log *slog.Logger) error {
	username = strings.ToLower(username)
	if !usernamePattern.MatchString(username) {
		return fmt.Errorf("VIGIL_ADMIN_USERNAME %q must be 3-64 letters, digits or . _ @ -", username)
	}
	generated := password == ""
	// 24 random base64 characters; drawn again in the rare case that they
	// happen to contain the username.
	for password == "" || generated && PasswordProblem(username, password) != "" {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		password = base64.RawURLEncoding.EncodeToString(b)
	}
	if problem := PasswordProblem(username, password); problem != "" {
		return fmt.Errorf("VIGIL_ADMIN_PASSWORD %s: %s", problem, PasswordRule)
	}
	now := time.Now().UTC()
	org := Organization{ID: uuid.Must(uuid.NewV7()).String(), Name: "default", CreatedAt: now}
	admin := User{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, Username: username,
		Email: username + "@localhost", FullName: "Administrator", Role: RoleAdmin, Active: true,
		CreatedAt: now, UpdatedAt: now}
	if err := hashInto(&admin, password); err != nil {
		return err
	}
	created, err := s.Bootstrap(ctx, org, rolesFor(org.ID, now), admin)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if !created {
		return nil
	}
	if generated {
		log.Warn("created the first admin with a generated password; it is shown only this once",
			"username", username, "password", password, "organization_id", org.ID)
	} else {
		log.Info("created the first admin from VIGIL_ADMIN_USERNAME/VIGIL_ADMIN_PASSWORD",
			"username", username, "organization_id", org.ID)
	}
	return nil
}

// SigningSecret returns the login-token secret: configured, or generated
// once and kept in the store so that every replica and restart shares it.
func SigningSecret(ctx context.Context, s Store, configured string) ([]byte, error) {
	if configured != "" {
		if len(configured) < 32 {
			return nil, fmt.Errorf("VIGIL_JWT_SECRET must be at least 32 characters")
		}
		return []byte(configured), nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	v, err := s.Secret(ctx, "jwt_secret", base64.RawStdEncoding.EncodeToString(b))
	if err != nil {
		return nil, fmt.Errorf("load the token secret: %w", err)
	}
	return base64.RawStdEncoding.DecodeString(v)
}
