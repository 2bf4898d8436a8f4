package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/store"
)

var _ share.Store = (*DB)(nil)

const shareColumns = `id, org_id, export_id, slug, recipient_email, status, view_count, created_by, created_at, expires_at,
	verified_at, revoked_at, code_hash, code_expires_at, code_tries, code_used`

func (s *DB) scanShare(row interface{ Scan(...any) error }) (share.Share, error) {
	var sh share.Share
	var created, expires, codeExpires int64
	var verified, revoked sql.NullInt64
	if err := row.Scan(&sh.ID, &sh.OrgID, &sh.ExportID, &sh.Slug, &sh.Recipient, &sh.Status, &sh.Views, &sh.CreatedBy, &created,
		&expires, &verified, &revoked, &sh.CodeHash, &codeExpires, &sh.CodeTries, &sh.CodeUsed); err != nil {
		return sh, s.wrap(err)
	}
	sh.CreatedAt, sh.ExpiresAt, sh.CodeExpires = fromMicros(created), fromMicros(expires), fromMicros(codeExpires)
	sh.VerifiedAt, sh.RevokedAt = fromNullMicros(verified), fromNullMicros(revoked)
	return sh, nil
}

// addShareEvent writes e to the share audit trail.
func (s *DB) addShareEvent(ctx context.Context, q querier, e share.Event) error {
	_, err := s.exec(ctx, q, `INSERT INTO export_share_events (id, share_id, org_id, kind, detail, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.ShareID, e.OrgID, e.Kind, e.Detail, e.Actor, micros(e.At))
	return err
}

// CreateShare implements share.Store.
func (s *DB) CreateShare(ctx context.Context, sh share.Share, created share.Event) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `INSERT INTO export_shares (`+shareColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sh.ID, sh.OrgID, sh.ExportID, sh.Slug, sh.Recipient, sh.Status, sh.Views, sh.CreatedBy, micros(sh.CreatedAt),
			micros(sh.ExpiresAt), nullMicros(sh.VerifiedAt), nullMicros(sh.RevokedAt), sh.CodeHash, micros(sh.CodeExpires),
			sh.CodeTries, sh.CodeUsed); err != nil {
			return err
		}
		return s.addShareEvent(ctx, tx, created)
	})
}

// Share implements share.Store.
func (s *DB) Share(ctx context.Context, orgID, slug string) (share.Share, error) {
	return s.scanShare(s.db.QueryRowContext(ctx, s.q(`SELECT `+shareColumns+` FROM export_shares WHERE org_id = ? AND slug = ?`),
		orgID, slug))
}

// ShareBySlug implements share.Store.
func (s *DB) ShareBySlug(ctx context.Context, slug string) (share.Share, error) {
	return s.scanShare(s.db.QueryRowContext(ctx, s.q(`SELECT `+shareColumns+` FROM export_shares WHERE slug = ?`), slug))
}

// Shares implements share.Store.
func (s *DB) Shares(ctx context.Context, orgID, exportID string, offset, limit int) ([]share.Share, int64, error) {
	return listPage(ctx, s, "export_shares", shareColumns, "org_id = ? AND export_id = ?", "created_at DESC, id DESC",
		[]any{orgID, exportID}, offset, limit, s.scanShare)
}

// SetShareCode implements share.Store.
func (s *DB) SetShareCode(ctx context.Context, shareID, hash string, expires time.Time, requested share.Event) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE export_shares SET code_hash = ?, code_expires_at = ?, code_tries = 0, code_used = ?
			WHERE id = ? AND status <> 'revoked'`, hash, micros(expires), false, shareID)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		return s.addShareEvent(ctx, tx, requested)
	})
}

// VerifyShareCode implements share.Store: the conditional UPDATE of the
// unused code is the compare-and-swap that only one caller wins.
func (s *DB) VerifyShareCode(ctx context.Context, shareID, hash string, maxTries int, tok share.Token, ev share.Event) (bool, error) {
	won := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE export_shares SET code_used = ?, status = 'verified', verified_at = COALESCE(verified_at, ?)
			WHERE id = ? AND code_hash = ? AND code_used = ? AND code_tries < ? AND code_expires_at > ? AND status <> 'revoked'
			AND expires_at > ?`, true, micros(ev.At), shareID, hash, false, maxTries, micros(ev.At), micros(ev.At))
		if err != nil || n == 0 {
			return err
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO export_share_tokens (token_hash, share_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			tok.Hash, tok.ShareID, micros(tok.CreatedAt), micros(tok.Expires)); err != nil {
			return err
		}
		won = true
		return s.addShareEvent(ctx, tx, ev)
	})
	return won && err == nil, err
}

// DenyShareCode implements share.Store.
func (s *DB) DenyShareCode(ctx context.Context, shareID, codeHash string, ev share.Event) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if codeHash != "" {
			if _, err := s.exec(ctx, tx, `UPDATE export_shares SET code_tries = code_tries + 1 WHERE id = ? AND code_hash = ? AND code_used = ?`,
				shareID, codeHash, false); err != nil {
				return err
			}
		}
		return s.addShareEvent(ctx, tx, ev)
	})
}

// UseShareToken implements share.Store.
func (s *DB) UseShareToken(ctx context.Context, slug, tokenHash string, ev share.Event) (share.Share, error) {
	var sh share.Share
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE export_shares SET view_count = view_count + 1 WHERE slug = ? AND status <> 'revoked'
			AND id IN (SELECT share_id FROM export_share_tokens WHERE token_hash = ? AND expires_at > ?)`, slug, tokenHash, micros(ev.At))
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		if sh, err = s.scanShare(tx.QueryRowContext(ctx, s.q(`SELECT `+shareColumns+` FROM export_shares WHERE slug = ?`), slug)); err != nil {
			return err
		}
		ev.ShareID, ev.OrgID = sh.ID, sh.OrgID
		return s.addShareEvent(ctx, tx, ev)
	})
	return sh, err
}

// RevokeShare implements share.Store.
func (s *DB) RevokeShare(ctx context.Context, orgID, slug string, ev share.Event) (share.Share, error) {
	var sh share.Share
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE export_shares SET status = 'revoked', revoked_at = ? WHERE org_id = ? AND slug = ?
			AND status <> 'revoked'`, micros(ev.At), orgID, slug)
		if err != nil {
			return err
		}
		if sh, err = s.scanShare(tx.QueryRowContext(ctx, s.q(`SELECT `+shareColumns+` FROM export_shares WHERE org_id = ? AND slug = ?`),
			orgID, slug)); err != nil {
			return err
		}
		if n == 0 {
			return store.ErrConflict
		}
		ev.ShareID, ev.OrgID = sh.ID, sh.OrgID
		return s.addShareEvent(ctx, tx, ev)
	})
	return sh, err
}

// ShareEvents implements share.Store.
func (s *DB) ShareEvents(ctx context.Context, orgID, shareID string, offset, limit int) ([]share.Event, int64, error) {
	return listPage(ctx, s, "export_share_events", "id, share_id, org_id, kind, detail, actor, at", "org_id = ? AND share_id = ?",
		"at, id", []any{orgID, shareID}, offset, limit, func(row interface{ Scan(...any) error }) (share.Event, error) {
			var e share.Event
			var at int64
			err := row.Scan(&e.ID, &e.ShareID, &e.OrgID, &e.Kind, &e.Detail, &e.Actor, &at)
			e.At = fromMicros(at)
			return e, s.wrap(err)
		})
}
