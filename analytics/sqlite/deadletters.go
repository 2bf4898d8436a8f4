package sqlite

import (
	"context"
	"fmt"

	"github.com/vigilhq/vigil/analytics"
)

var _ analytics.DeadLetters = (*Store)(nil)

// SetAside implements analytics.DeadLetters in one transaction; a dead
// letter stored already is kept as it was.
func (s *Store) SetAside(ctx context.Context, dls []analytics.DeadLetter) error {
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	defer end()
	for _, d := range dls {
		res, err := tx.ExecContext(ctx, `INSERT INTO dead_letters (`+analytics.DeadLetterColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, analytics.DeadLetterArgs(d)...)
		if err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			continue // set aside already: counted then
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO dead_letter_minutes (org_id, model_id, minute, count) VALUES (?, ?, ?, 1)
			ON CONFLICT (org_id, model_id, minute) DO UPDATE SET count = count + 1`,
			d.OrgID, d.ModelID, d.FailedAt.UnixMicro()/60_000_000*60_000_000); err != nil {
			return fmt.Errorf("dead letter counts: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	return nil
}

// DeadLetters implements analytics.Store.
func (s *Store) DeadLetters(ctx context.Context, orgID string, limit int) ([]analytics.DeadLetter, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+analytics.DeadLetterColumns+` FROM dead_letters WHERE org_id = ?
		ORDER BY failed_at DESC, kind, model_id, event_id LIMIT ?`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("dead letters: %w", err)
	}
	defer rows.Close()
	return analytics.ScanDeadLetters(rows)
}

// DeadLetterCount implements analytics.Store from the per-minute counts.
func (s *Store) DeadLetterCount(ctx context.Context, orgID, modelID string, r analytics.Range) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(count), 0) FROM dead_letter_minutes
		WHERE org_id = ? AND model_id = ? AND minute >= ? AND minute < ?`, orgID, modelID, r.From.UnixMicro(), r.To.UnixMicro()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("dead letter counts: %w", err)
	}
	return n, nil
}
