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

	"github.com/vigilhq/vigil/platform/secretbox"
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
		// A store set up by an earlier start keeps its admin: the variable
		// is ignored there, and said so, whatever it holds, so that a
		// deployment that keeps it set still restarts.
		if _, err := s.UserByUsername(ctx, username); err == nil {
			return checkIgnoredAdmin(ctx, s, username, password, log)
		}
		return fmt.Errorf("VIGIL_ADMIN_PASSWORD %s: %s (choose another, or unset it to have one generated)", problem, PasswordRule)
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

// jwtSecretSetting names the setting that keeps the sealed signing secret.
const jwtSecretSetting = "jwt_secret"

// SigningSecret returns the login-token secret: configured
// (VIGIL_JWT_SECRET), or generated once and kept in the store sealed with
// box's current master key, so that every replica and restart shares it
// and a dump of the store does not reveal it.
//
// A row sealed with an older key of box is sealed again with the current
// one (rotation); a plaintext row, kept by versions before sealing, is
// sealed as it is, so the tokens it signed stay valid. A row that box
// cannot open (its key is missing, or it was tampered with) is an error:
// the server must not start signing with another secret unnoticed.
func SigningSecret(ctx context.Context, s Store, configured string, box *secretbox.Keyring) ([]byte, error) {
	if configured != "" {
		if len(configured) < 32 {
			return nil, fmt.Errorf("VIGIL_JWT_SECRET must be at least 32 characters")
		}
		return []byte(configured), nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	sealed, err := box.Seal(fresh, jwtSecretSetting)
	if err != nil {
		return nil, fmt.Errorf("seal the token secret: %w", err)
	}
	for {
		v, err := s.Secret(ctx, jwtSecretSetting, sealed)
		if err != nil {
			return nil, fmt.Errorf("load the token secret: %w", err)
		}
		var secret []byte
		if secretbox.IsSealed(v) {
			secret, err = box.Open(v, jwtSecretSetting)
			if err != nil {
				return nil, fmt.Errorf("open the stored token secret with the master key (VIGIL_MASTER_KEY or VIGIL_MASTER_KEY_FILE): %w", err)
			}
			if id, _ := secretbox.KeyID(v); id == box.Current() {
				return secret, nil
			}
		} else if secret, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return nil, fmt.Errorf("stored plaintext token secret: %w", err)
		}
		resealed, err := box.Seal(secret, jwtSecretSetting)
		if err != nil {
			return nil, fmt.Errorf("seal the token secret: %w", err)
		}
		// Another replica may reseal at the same time: the loser reads the
		// winner's value on the next round.
		swapped, err := s.ReplaceSecret(ctx, jwtSecretSetting, v, resealed)
		if err != nil {
			return nil, fmt.Errorf("seal the stored token secret: %w", err)
		}
		if swapped {
			return secret, nil
		}
	}
}
