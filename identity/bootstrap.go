package identity

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/store"
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
// of this or any other replica, change nothing; should they be given a
// password that is not the admin's, they say loudly that it is ignored.
func Bootstrap(ctx context.Context, s Store, username, password string, log *slog.Logger) error {
	generated := password == ""
	if generated {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		password = base64.RawURLEncoding.EncodeToString(b)
	}
	if n := len([]rune(password)); n < MinPasswordLen || n > MaxPasswordLen {
		return fmt.Errorf("VIGIL_ADMIN_PASSWORD must be %d to %d characters", MinPasswordLen, MaxPasswordLen)
	}
	username = strings.ToLower(username)
	if !usernamePattern.MatchString(username) {
		return fmt.Errorf("VIGIL_ADMIN_USERNAME %q must be 3-64 letters, digits or . _ @ -", username)
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
		if !generated {
			return checkIgnoredAdmin(ctx, s, username, password, log)
		}
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

// checkIgnoredAdmin warns when VIGIL_ADMIN_USERNAME/VIGIL_ADMIN_PASSWORD,
// given to a start that found the store set up, do not log in: the first
// start's admin stays as it was, and a user who expects the variables to
// apply would otherwise find out only when the login fails.
func checkIgnoredAdmin(ctx context.Context, s Store, username, password string, log *slog.Logger) error {
	const why = "VIGIL_ADMIN_USERNAME and VIGIL_ADMIN_PASSWORD apply only to the first start, on an empty store"
	u, err := s.UserByUsername(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		log.Warn("VIGIL_ADMIN_PASSWORD IS IGNORED: the store was set up by an earlier start and has no user of this name; "+why,
			"username", username)
		return nil
	}
	if err != nil {
		return fmt.Errorf("bootstrap: look up the admin: %w", err)
	}
	if ok, err := CheckPassword(u.PasswordHash, password); err != nil || !ok {
		log.Warn("VIGIL_ADMIN_PASSWORD IS IGNORED: it is not the password of the admin an earlier start created; "+
			"log in with that admin's password (a generated one was logged as \"created the first admin\"). "+why,
			"username", username)
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
