package sqlite

import (
	"context"
	"fmt"

	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/query"
)

var _ processors.DeadLetters = (*Store)(nil)

// SetAside implements processors.DeadLetters in one transaction; a dead
// letter stored already is kept as it was.
func (s *Store) SetAside(ctx context.Context, dls []processors.DeadLetter) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	defer tx.Rollback()
	for _, d := range dls {
		if _, err := tx.ExecContext(ctx, `INSERT INTO dead_letters (`+query.DeadLetterColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, query.DeadLetterArgs(d)...); err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	return nil
}

// DeadLetters implements query.Store.
func (s *Store) DeadLetters(ctx context.Context, orgID string, limit int) ([]processors.DeadLetter, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+query.DeadLetterColumns+` FROM dead_letters WHERE org_id = ?
		ORDER BY failed_at DESC, kind, model_id, event_id LIMIT ?`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("dead letters: %w", err)
	}
	defer rows.Close()
	return query.ScanDeadLetters(rows)
}
