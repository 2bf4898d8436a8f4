package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/store"
)

var _ codehost.Store = (*DB)(nil)

// CreateCodehostConnection implements codehost.Store.
func (s *DB) CreateCodehostConnection(ctx context.Context, c codehost.Connection) error {
	scopes, err := toJSON(orNoStrings(c.Scopes))
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO codehost_connections (id, org_id, auth_type, status, username, email, scopes,
		sealed_token, created_at, sealed_refresh_token, token_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.OrgID, c.AuthType, c.Status, c.Username, c.Email, scopes, c.SealedToken, micros(c.CreatedAt),
		c.SealedRefreshToken, expiry(c.ExpiresAt))
	return err
}

// expiry is a token's expiry as its column holds it: 0 when it has none.
func expiry(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return micros(t)
}

const connectionColumns = `id, org_id, auth_type, status, username, email, scopes, sealed_token, created_at,
	sealed_refresh_token, token_expires_at`

func (s *DB) scanConnection(row interface{ Scan(...any) error }) (codehost.Connection, error) {
	var c codehost.Connection
	var scopes string
	var created, expires int64
	if err := row.Scan(&c.ID, &c.OrgID, &c.AuthType, &c.Status, &c.Username, &c.Email, &scopes, &c.SealedToken, &created,
		&c.SealedRefreshToken, &expires); err != nil {
		return c, s.wrap(err)
	}
	c.CreatedAt = fromMicros(created)
	if expires != 0 {
		c.ExpiresAt = fromMicros(expires)
	}
	return c, fromJSON(scopes, &c.Scopes)
}

// ClaimCodehostRefresh implements codehost.Store: one conditional UPDATE.
func (s *DB) ClaimCodehostRefresh(ctx context.Context, orgID, id string, now, until time.Time) (bool, error) {
	n, err := s.exec(ctx, s.db, `UPDATE codehost_connections SET refresh_claimed_until = ?
		WHERE org_id = ? AND id = ? AND refresh_claimed_until <= ?`, micros(until), orgID, id, micros(now))
	return n == 1, err
}

// UpdateCodehostTokens implements codehost.Store.
func (s *DB) UpdateCodehostTokens(ctx context.Context, c codehost.Connection) error {
	n, err := s.exec(ctx, s.db, `UPDATE codehost_connections SET status = ?, sealed_token = ?, sealed_refresh_token = ?,
		token_expires_at = ?, refresh_claimed_until = 0 WHERE org_id = ? AND id = ?`,
		c.Status, c.SealedToken, c.SealedRefreshToken, expiry(c.ExpiresAt), c.OrgID, c.ID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// CodehostConnection implements codehost.Store.
func (s *DB) CodehostConnection(ctx context.Context, orgID, id string) (codehost.Connection, error) {
	return s.scanConnection(s.db.QueryRowContext(ctx, s.q(`SELECT `+connectionColumns+
		` FROM codehost_connections WHERE org_id = ? AND id = ?`), orgID, id))
}

// CodehostConnections implements codehost.Store.
func (s *DB) CodehostConnections(ctx context.Context, orgID string) ([]codehost.Connection, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+connectionColumns+
		` FROM codehost_connections WHERE org_id = ? ORDER BY created_at, id`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanConnection)
}

// DeleteCodehostConnection implements codehost.Store; the schema's
// cascades remove its repositories and their deliveries.
func (s *DB) DeleteCodehostConnection(ctx context.Context, orgID, id string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM codehost_connections WHERE org_id = ? AND id = ?`, orgID, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

func orNoStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const repositoryColumns = `id, org_id, connection_id, owner, name, full_name, default_branch, is_private, tracked_branches,
	webhook_status, sealed_webhook_secret, total_commits_processed, total_models_registered, created_at,
	track_tags, track_releases, auto_register, model_path_patterns, webhook_id, tracked_by, revision`

// repositoryLists returns r's tracked branches and model path patterns as
// their columns hold them.
func repositoryLists(r codehost.Repository) (branches, patterns string, err error) {
	if branches, err = toJSON(orNoStrings(r.TrackedBranches)); err != nil {
		return "", "", err
	}
	patterns, err = toJSON(orNoStrings(r.ModelPathPatterns))
	return branches, patterns, err
}

// CreateCodehostRepository implements codehost.Store.
func (s *DB) CreateCodehostRepository(ctx context.Context, r codehost.Repository) error {
	branches, patterns, err := repositoryLists(r)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM codehost_connections WHERE org_id = ? AND id = ?`),
			r.OrgID, r.ConnectionID).Scan(&one); err != nil {
			return s.wrap(err)
		}
		_, err := s.exec(ctx, tx, `INSERT INTO codehost_repositories (`+repositoryColumns+`) VALUES (`+placeholders(21)+`)`,
			r.ID, r.OrgID, r.ConnectionID, r.Owner, r.Name, r.FullName, r.DefaultBranch, r.IsPrivate, branches,
			r.WebhookStatus, r.SealedWebhookSecret, r.TotalCommitsProcessed, r.TotalModelsRegistered, micros(r.CreatedAt),
			r.TrackTags, r.TrackReleases, r.AutoRegister, patterns, r.WebhookID, r.TrackedBy, r.Revision)
		return err
	})
}

func (s *DB) scanRepository(row interface{ Scan(...any) error }) (codehost.Repository, error) {
	var r codehost.Repository
	var branches, patterns string
	var created int64
	err := row.Scan(&r.ID, &r.OrgID, &r.ConnectionID, &r.Owner, &r.Name, &r.FullName, &r.DefaultBranch, &r.IsPrivate, &branches,
		&r.WebhookStatus, &r.SealedWebhookSecret, &r.TotalCommitsProcessed, &r.TotalModelsRegistered, &created,
		&r.TrackTags, &r.TrackReleases, &r.AutoRegister, &patterns, &r.WebhookID, &r.TrackedBy, &r.Revision)
	if err != nil {
		return r, s.wrap(err)
	}
	r.CreatedAt = fromMicros(created)
	if err := fromJSON(branches, &r.TrackedBranches); err != nil {
		return r, err
	}
	return r, fromJSON(patterns, &r.ModelPathPatterns)
}

// WebhookRepository implements codehost.Store.
func (s *DB) WebhookRepository(ctx context.Context, id string) (codehost.Repository, error) {
	return s.scanRepository(s.db.QueryRowContext(ctx, s.q(`SELECT `+repositoryColumns+` FROM codehost_repositories WHERE id = ?`), id))
}

// WebhookRepositoriesNamed implements codehost.Store.
func (s *DB) WebhookRepositoriesNamed(ctx context.Context, fullName string, limit int) ([]codehost.Repository, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+repositoryColumns+` FROM codehost_repositories
		WHERE LOWER(full_name) = LOWER(?) AND sealed_webhook_secret <> '' ORDER BY created_at, id LIMIT ?`), fullName, limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanRepository)
}

// CodehostRepository implements codehost.Store.
func (s *DB) CodehostRepository(ctx context.Context, orgID, id string) (codehost.Repository, error) {
	return s.scanRepository(s.db.QueryRowContext(ctx, s.q(`SELECT `+repositoryColumns+
		` FROM codehost_repositories WHERE org_id = ? AND id = ?`), orgID, id))
}

// CodehostRepositories implements codehost.Store.
func (s *DB) CodehostRepositories(ctx context.Context, orgID string, offset, limit int) ([]codehost.Repository, int64, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM codehost_repositories WHERE org_id = ?`), orgID).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+repositoryColumns+` FROM codehost_repositories WHERE org_id = ?
		ORDER BY created_at, id LIMIT ? OFFSET ?`), orgID, limit, offset)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	rs, err := collect(rows, s.scanRepository)
	return rs, total, err
}

// UpdateCodehostRepository implements codehost.Store: one UPDATE
// conditional on the revision r was read at; when it changes no row, a
// read tells a stale revision (store.ErrConflict) from a missing
// repository.
func (s *DB) UpdateCodehostRepository(ctx context.Context, r codehost.Repository) error {
	branches, patterns, err := repositoryLists(r)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `UPDATE codehost_repositories SET tracked_branches = ?, track_tags = ?, track_releases = ?,
		auto_register = ?, model_path_patterns = ?, webhook_status = ?, webhook_id = ?, sealed_webhook_secret = ?,
		revision = revision + 1 WHERE org_id = ? AND id = ? AND revision = ?`,
		branches, r.TrackTags, r.TrackReleases, r.AutoRegister, patterns, r.WebhookStatus, r.WebhookID, r.SealedWebhookSecret,
		r.OrgID, r.ID, r.Revision)
	if err != nil || n == 1 {
		return err
	}
	if _, err := s.CodehostRepository(ctx, r.OrgID, r.ID); err != nil {
		return err
	}
	return fmt.Errorf("%w: repository %s changed since revision %d", store.ErrConflict, r.ID, r.Revision)
}

// DeleteCodehostRepository implements codehost.Store; the schema's
// cascade removes its deliveries.
func (s *DB) DeleteCodehostRepository(ctx context.Context, orgID, id string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM codehost_repositories WHERE org_id = ? AND id = ?`, orgID, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// RecordDelivery implements codehost.Store.
func (s *DB) RecordDelivery(ctx context.Context, d codehost.Delivery) (bool, error) {
	n, err := s.exec(ctx, s.db, `INSERT INTO codehost_deliveries (repository_id, delivery_id, org_id, event, payload, status,
		received_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repository_id, delivery_id) DO NOTHING`,
		d.RepositoryID, d.ID, d.OrgID, d.Event, string(d.Payload), d.Status, micros(d.ReceivedAt))
	return n == 1, err
}

// Deliveries implements codehost.Store.
func (s *DB) Deliveries(ctx context.Context, orgID, repositoryID string) ([]codehost.Delivery, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT repository_id, delivery_id, org_id, event, payload, status, received_at
		FROM codehost_deliveries WHERE org_id = ? AND repository_id = ? ORDER BY received_at, delivery_id`), orgID, repositoryID)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, func(row interface{ Scan(...any) error }) (codehost.Delivery, error) {
		var d codehost.Delivery
		var payload string
		var received int64
		err := row.Scan(&d.RepositoryID, &d.ID, &d.OrgID, &d.Event, &payload, &d.Status, &received)
		d.Payload, d.ReceivedAt = []byte(payload), fromMicros(received)
		return d, s.wrap(err)
	})
}

// CreateCodehostOAuthState implements codehost.Store; states past their
// expiry are removed on the way.
func (s *DB) CreateCodehostOAuthState(ctx context.Context, st codehost.OAuthState, now time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `DELETE FROM codehost_oauth_states WHERE expires_at <= ?`, micros(now)); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, `INSERT INTO codehost_oauth_states (nonce, org_id, user_id, expires_at) VALUES (?, ?, ?, ?)`,
			st.Nonce, st.OrgID, st.UserID, micros(st.ExpiresAt))
		return err
	})
}

// ConsumeCodehostOAuthState implements codehost.Store: one DELETE both
// checks and uses the state, so of two callbacks with it one wins.
func (s *DB) ConsumeCodehostOAuthState(ctx context.Context, st codehost.OAuthState, now time.Time) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM codehost_oauth_states WHERE nonce = ? AND org_id = ? AND user_id = ? AND expires_at > ?`,
		st.Nonce, st.OrgID, st.UserID, micros(now))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}
