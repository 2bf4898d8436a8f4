package sqlstore

import "context"

// governancePending returns up to limit rows of table, of every
// organization, that owe their governance event (governance_pending),
// ordered by order then id: the outboxes of drift reports and bias audits.
func governancePending[T any](ctx context.Context, s *DB, table, columns, order string, limit int,
	scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+columns+` FROM `+table+`
		WHERE governance_pending ORDER BY `+order+`, id LIMIT ?`), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, scan)
}

// governanceSent records that the governance event of the organization's
// row id of table is on the log.
func (s *DB) governanceSent(ctx context.Context, table, orgID, id string) error {
	_, err := s.exec(ctx, s.db, `UPDATE `+table+` SET governance_pending = FALSE WHERE org_id = ? AND id = ?`, orgID, id)
	return err
}
