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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	defer tx.Rollback()
	for _, d := range dls {
		if _, err := tx.ExecContext(ctx, `INSERT INTO dead_letters (`+analytics.DeadLetterColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, analytics.DeadLetterArgs(d)...); err != nil {
			return fmt.Errorf("dead letters: %w", err)
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
