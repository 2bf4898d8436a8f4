package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/store"
)

var _ codehost.Queue = (*DB)(nil)

const queuedColumns = `repository_id, delivery_id, org_id, event, payload, status, received_at, attempts, next_attempt_at,
	last_error, result, processed_at`

func (s *DB) scanQueued(row interface{ Scan(...any) error }) (codehost.QueuedDelivery, error) {
	var d codehost.QueuedDelivery
	var payload, result string
	var received, next, processed int64
	if err := row.Scan(&d.RepositoryID, &d.ID, &d.OrgID, &d.Event, &payload, &d.Status, &received, &d.Attempts, &next,
		&d.LastError, &result, &processed); err != nil {
		return d, s.wrap(err)
	}
	d.Payload, d.ReceivedAt, d.NextAttempt = []byte(payload), fromMicros(received), fromMicros(next)
	if processed != 0 {
		t := fromMicros(processed)
		d.ProcessedAt = &t
	}
	if d.Status == codehost.DeliveryProcessed {
		d.Outcome = &codehost.Outcome{}
		if err := fromJSON(result, d.Outcome); err != nil {
			return d, err
		}
	}
	return d, nil
}

// ClaimDeliveries implements codehost.Queue: candidates are read, then
// each is leased by an UPDATE that re-checks it is still free, so that two
// processors never hold one delivery (no SKIP LOCKED needed: the loser's
// UPDATE changes no row).
func (s *DB) ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]codehost.QueuedDelivery, error) {
	type key struct{ repo, id string }
	var keys []key
	err := func() error {
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT repository_id, delivery_id FROM codehost_deliveries
			WHERE status = ? AND next_attempt_at <= ? AND lease_until <= ? ORDER BY received_at, delivery_id LIMIT ?`),
			codehost.DeliveryReceived, micros(now), micros(now), limit)
		if err != nil {
			return s.wrap(err)
		}
		keys, err = collect(rows, func(row interface{ Scan(...any) error }) (key, error) {
			var k key
			return k, s.wrap(row.Scan(&k.repo, &k.id))
		})
		return err
	}()
	if err != nil {
		return nil, err
	}
	var out []codehost.QueuedDelivery
	for _, k := range keys {
		n, err := s.exec(ctx, s.db, `UPDATE codehost_deliveries SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
			WHERE repository_id = ? AND delivery_id = ? AND status = ? AND next_attempt_at <= ? AND lease_until <= ?`,
			owner, micros(now.Add(lease)), k.repo, k.id, codehost.DeliveryReceived, micros(now), micros(now))
		if err != nil {
			return out, err
		}
		if n != 1 {
			continue
		}
		d, err := s.scanQueued(s.db.QueryRowContext(ctx, s.q(`SELECT `+queuedColumns+` FROM codehost_deliveries
			WHERE repository_id = ? AND delivery_id = ?`), k.repo, k.id))
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// FinishDelivery implements codehost.Queue.
func (s *DB) FinishDelivery(ctx context.Context, owner string, d codehost.QueuedDelivery, o codehost.Outcome, commits, models int64, now time.Time) error {
	result, err := toJSON(o)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE codehost_deliveries SET status = ?, result = ?, processed_at = ?, last_error = '',
			lease_owner = '', lease_until = 0 WHERE repository_id = ? AND delivery_id = ? AND status = ? AND lease_owner = ?`,
			codehost.DeliveryProcessed, result, micros(now), d.RepositoryID, d.ID, codehost.DeliveryReceived, owner)
		if err != nil {
			return err
		}
		if n != 1 {
			return store.ErrConflict
		}
		_, err = s.exec(ctx, tx, `UPDATE codehost_repositories SET total_commits_processed = total_commits_processed + ?,
			total_models_registered = total_models_registered + ? WHERE id = ?`, commits, models, d.RepositoryID)
		return err
	})
}

// RetryDelivery implements codehost.Queue.
func (s *DB) RetryDelivery(ctx context.Context, owner string, d codehost.QueuedDelivery, cause string, next time.Time, giveUp bool) error {
	status := codehost.DeliveryReceived
	if giveUp {
		status = codehost.DeliveryFailed
	}
	if len(cause) > 2000 {
		cause = cause[:2000]
	}
	n, err := s.exec(ctx, s.db, `UPDATE codehost_deliveries SET status = ?, last_error = ?, next_attempt_at = ?, lease_owner = '',
		lease_until = 0 WHERE repository_id = ? AND delivery_id = ? AND status = ? AND lease_owner = ?`,
		status, cause, micros(next), d.RepositoryID, d.ID, codehost.DeliveryReceived, owner)
	if err == nil && n != 1 {
		err = store.ErrConflict
	}
	return err
}

// QueuedDeliveries implements codehost.Queue.
func (s *DB) QueuedDeliveries(ctx context.Context, orgID, repositoryID string, offset, limit int) ([]codehost.QueuedDelivery, int64, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM codehost_deliveries WHERE org_id = ? AND repository_id = ?`),
		orgID, repositoryID).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+queuedColumns+` FROM codehost_deliveries WHERE org_id = ? AND repository_id = ?
		ORDER BY received_at DESC, delivery_id DESC LIMIT ? OFFSET ?`), orgID, repositoryID, limit, offset)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	ds, err := collect(rows, s.scanQueued)
	return ds, total, err
}
