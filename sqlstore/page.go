package sqlstore

import "context"

// listPage returns rows of table matching cond, ordered, from offset (at most
// limit; no limit when limit <= 0), and how many match.
func listPage[T any](ctx context.Context, s *DB, table, columns, cond, order string, args []any, offset, limit int,
	scan func(interface{ Scan(...any) error }) (T, error)) ([]T, int64, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM `+table+` WHERE `+cond), args...).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	lim := int64(limit)
	if lim <= 0 {
		lim = 1 << 62
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+columns+` FROM `+table+` WHERE `+cond+` ORDER BY `+order+
		` LIMIT ? OFFSET ?`), append(args, lim, offset)...)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	out, err := collect(rows, scan)
	return out, total, err
}
