package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/store"
)

var _ identity.Store = (*DB)(nil)

// Bootstrap implements identity.Store. A row in settings marks the store as
// bootstrapped, so two replicas starting together create one admin.
func (s *DB) Bootstrap(ctx context.Context, org identity.Organization, roles []identity.Role, admin identity.User) (bool, error) {
	created := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `INSERT INTO settings (key, value) VALUES ('bootstrapped', ?) ON CONFLICT (key) DO NOTHING`,
			org.CreatedAt.UTC().Format(time.RFC3339))
		if err != nil || n == 0 {
			return err
		}
		created = true
		return s.createOrganization(ctx, tx, org, roles, admin)
	})
	return created, err
}

// CreateOrganization implements identity.Store.
func (s *DB) CreateOrganization(ctx context.Context, org identity.Organization, roles []identity.Role, first identity.User) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.createOrganization(ctx, tx, org, roles, first) })
}

func (s *DB) createOrganization(ctx context.Context, tx *sql.Tx, org identity.Organization, roles []identity.Role, first identity.User) error {
	if _, err := s.exec(ctx, tx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`,
		org.ID, org.Name, micros(org.CreatedAt)); err != nil {
		return err
	}
	for _, r := range roles {
		if err := s.createRole(ctx, tx, r); err != nil {
			return err
		}
	}
	return s.createUser(ctx, tx, first)
}

// Secret implements identity.Store.
func (s *DB) Secret(ctx context.Context, name, value string) (string, error) {
	if _, err := s.exec(ctx, s.db, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, name, value); err != nil {
		return "", err
	}
	var v string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT value FROM settings WHERE key = ?`), name).Scan(&v)
	return v, s.wrap(err)
}

// ReplaceSecret implements identity.Store.
func (s *DB) ReplaceSecret(ctx context.Context, name, old, value string) (bool, error) {
	n, err := s.exec(ctx, s.db, `UPDATE settings SET value = ? WHERE key = ? AND value = ?`, value, name, old)
	return n == 1, err
}

const userColumns = `id, org_id, username, email, full_name, password_hash, role, active, created_at, updated_at`

// CreateUser implements identity.Store.
func (s *DB) CreateUser(ctx context.Context, u identity.User) error {
	return s.createUser(ctx, s.db, u)
}

func (s *DB) createUser(ctx context.Context, qr querier, u identity.User) error {
	_, err := s.exec(ctx, qr, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.OrgID, u.Username, u.Email, u.FullName, u.PasswordHash, u.Role, u.Active, micros(u.CreatedAt), micros(u.UpdatedAt))
	return err
}

func (s *DB) scanUser(row interface{ Scan(...any) error }) (identity.User, error) {
	var u identity.User
	var created, updated int64
	err := row.Scan(&u.ID, &u.OrgID, &u.Username, &u.Email, &u.FullName, &u.PasswordHash, &u.Role, &u.Active, &created, &updated)
	u.CreatedAt, u.UpdatedAt = fromMicros(created), fromMicros(updated)
	return u, s.wrap(err)
}

// UserByUsername implements identity.Store.
func (s *DB) UserByUsername(ctx context.Context, username string) (identity.User, error) {
	return s.scanUser(s.db.QueryRowContext(ctx, s.q(`SELECT `+userColumns+` FROM users WHERE username = ?`), username))
}

// User implements identity.Store.
func (s *DB) User(ctx context.Context, orgID, id string) (identity.User, error) {
	return s.scanUser(s.db.QueryRowContext(ctx, s.q(`SELECT `+userColumns+` FROM users WHERE org_id = ? AND id = ?`), orgID, id))
}

// Users implements identity.Store.
func (s *DB) Users(ctx context.Context, orgID string, offset, limit int) ([]identity.User, int64, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM users WHERE org_id = ?`), orgID).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+userColumns+` FROM users WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`),
		orgID, limit, offset)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	users, err := collect(rows, s.scanUser)
	return users, total, err
}

// SetUserRole implements identity.Store.
func (s *DB) SetUserRole(ctx context.Context, orgID, id, role string, at time.Time) (identity.User, error) {
	err := s.changeUser(ctx, orgID, id, role == identity.RoleAdmin,
		`UPDATE users SET role = ?, updated_at = ? WHERE org_id = ? AND id = ?`, role, micros(at), orgID, id)
	if err != nil {
		return identity.User{}, err
	}
	return s.User(ctx, orgID, id)
}

// DeactivateUser implements identity.Store.
func (s *DB) DeactivateUser(ctx context.Context, orgID, id string, at time.Time) error {
	return s.changeUser(ctx, orgID, id, false,
		`UPDATE users SET active = ?, updated_at = ? WHERE org_id = ? AND id = ?`, false, micros(at), orgID, id)
}

// changeUser runs update on one user unless the user is the organization's
// last active admin and stays admin is false. The admins are locked while
// it checks, so two concurrent demotions cannot both pass.
func (s *DB) changeUser(ctx context.Context, orgID, id string, staysAdmin bool, update string, args ...any) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.q(`SELECT id FROM users WHERE org_id = ? AND role = ? AND active = ?`+s.d.ForUpdate),
			orgID, identity.RoleAdmin, true)
		if err != nil {
			return s.wrap(err)
		}
		admins, err := collect(rows, func(r interface{ Scan(...any) error }) (string, error) {
			var v string
			return v, r.Scan(&v)
		})
		if err != nil {
			return s.wrap(err)
		}
		if !staysAdmin && len(admins) == 1 && admins[0] == id {
			return fmt.Errorf("%w: the organization's last admin stays an active admin", store.ErrConflict)
		}
		n, err := s.exec(ctx, tx, update, args...)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return err
	})
}

const roleColumns = `id, org_id, name, description, permissions, built_in, created_at`

// CreateRole implements identity.Store.
func (s *DB) CreateRole(ctx context.Context, r identity.Role) error {
	return s.createRole(ctx, s.db, r)
}

func (s *DB) createRole(ctx context.Context, qr querier, r identity.Role) error {
	perms, err := toJSON(r.Permissions)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, qr, `INSERT INTO roles (`+roleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrgID, r.Name, r.Description, perms, r.BuiltIn, micros(r.CreatedAt))
	return err
}

func (s *DB) scanRole(row interface{ Scan(...any) error }) (identity.Role, error) {
	var r identity.Role
	var perms string
	var created int64
	if err := row.Scan(&r.ID, &r.OrgID, &r.Name, &r.Description, &perms, &r.BuiltIn, &created); err != nil {
		return r, s.wrap(err)
	}
	r.CreatedAt = fromMicros(created)
	return r, fromJSON(perms, &r.Permissions)
}

// Role implements identity.Store.
func (s *DB) Role(ctx context.Context, orgID, id string) (identity.Role, error) {
	return s.scanRole(s.db.QueryRowContext(ctx, s.q(`SELECT `+roleColumns+` FROM roles WHERE org_id = ? AND id = ?`), orgID, id))
}

// RoleByName implements identity.Store.
func (s *DB) RoleByName(ctx context.Context, orgID, name string) (identity.Role, error) {
	return s.scanRole(s.db.QueryRowContext(ctx, s.q(`SELECT `+roleColumns+` FROM roles WHERE org_id = ? AND name = ?`), orgID, name))
}

// Roles implements identity.Store.
func (s *DB) Roles(ctx context.Context, orgID string) ([]identity.Role, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+roleColumns+` FROM roles WHERE org_id = ? ORDER BY built_in DESC, name`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanRole)
}

// DeleteRole implements identity.Store: store.ErrConflict while users hold
// the role.
func (s *DB) DeleteRole(ctx context.Context, orgID, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var name string
		err := tx.QueryRowContext(ctx, s.q(`SELECT name FROM roles WHERE org_id = ? AND id = ? AND built_in = ?`+s.d.ForUpdate), orgID, id, false).Scan(&name)
		if err != nil {
			return s.wrap(err)
		}
		var holders int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM users WHERE org_id = ? AND role = ?`), orgID, name).Scan(&holders); err != nil {
			return s.wrap(err)
		}
		if holders > 0 {
			return fmt.Errorf("%w: role %s has %d users", store.ErrConflict, name, holders)
		}
		_, err = s.exec(ctx, tx, `DELETE FROM roles WHERE org_id = ? AND id = ?`, orgID, id)
		return err
	})
}

const keyColumns = `id, org_id, user_id, name, hint, hash, scopes, created_at, last_used_at, expires_at, revoked_at`

// CreateAPIKey implements identity.Store.
func (s *DB) CreateAPIKey(ctx context.Context, k identity.APIKey) error {
	scopes, err := toJSON(k.Scopes)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.OrgID, k.UserID, k.Name, k.Hint, k.Hash, scopes, micros(k.CreatedAt),
		nullMicros(k.LastUsedAt), nullMicros(k.ExpiresAt), nullMicros(k.RevokedAt))
	return err
}

func (s *DB) scanKey(row interface{ Scan(...any) error }) (identity.APIKey, error) {
	var k identity.APIKey
	var scopes string
	var created int64
	var used, expires, revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.OrgID, &k.UserID, &k.Name, &k.Hint, &k.Hash, &scopes, &created, &used, &expires, &revoked); err != nil {
		return k, s.wrap(err)
	}
	k.CreatedAt = fromMicros(created)
	k.LastUsedAt, k.ExpiresAt, k.RevokedAt = fromNullMicros(used), fromNullMicros(expires), fromNullMicros(revoked)
	return k, fromJSON(scopes, &k.Scopes)
}

// APIKeyByHash implements identity.Store.
func (s *DB) APIKeyByHash(ctx context.Context, hash string) (identity.APIKey, error) {
	return s.scanKey(s.db.QueryRowContext(ctx, s.q(`SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`), hash))
}

// APIKeys implements identity.Store: the organization's keys that are not
// revoked, oldest first.
func (s *DB) APIKeys(ctx context.Context, orgID string) ([]identity.APIKey, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+keyColumns+` FROM api_keys WHERE org_id = ? AND revoked_at IS NULL ORDER BY created_at, id`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanKey)
}

// RevokeAPIKey implements identity.Store.
func (s *DB) RevokeAPIKey(ctx context.Context, orgID, id string, at time.Time) error {
	n, err := s.exec(ctx, s.db, `UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND id = ? AND revoked_at IS NULL`, micros(at), orgID, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// TouchAPIKey implements identity.Store.
func (s *DB) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.exec(ctx, s.db, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, micros(at), id)
	return err
}

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return out, nil
}
