package clickhouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"

	"github.com/vigilhq/vigil/analytics"
)

var _ analytics.DeadLetters = (*Store)(nil)

// ClickHouse error codes that say the data is at fault, not the server.
var dataErrors = map[int32]bool{
	6:   true, // CANNOT_PARSE_TEXT
	27:  true, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
	53:  true, // TYPE_MISMATCH
	69:  true, // ARGUMENT_OUT_OF_BOUND
	70:  true, // CANNOT_CONVERT_TYPE
	72:  true, // CANNOT_PARSE_NUMBER
	131: true, // TOO_LARGE_STRING_SIZE
}

// refused reports whether err says this batch's data can never be stored:
// it does not encode, the driver cannot convert a value to its column, or
// the server refuses it with one of dataErrors. Network errors, timeouts
// and every other server error are retryable.
func refused(err error) bool {
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		return dataErrors[ex.Code]
	}
	var conv *column.ColumnConverterError
	return errors.As(err, &conv) || analytics.Unencodable(err)
}

// SetAside implements analytics.DeadLetters; a dead letter set aside
// again shares the sort key of the first and is merged away.
func (s *Store) SetAside(ctx context.Context, dls []analytics.DeadLetter) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO dead_letters (`+analytics.DeadLetterColumns+`)`)
	if err != nil {
		return fmt.Errorf("clickhouse dead letters: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, d := range dls {
		if err := batch.Append(analytics.DeadLetterArgs(d)...); err != nil {
			return fmt.Errorf("clickhouse dead letters: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse dead letters: %w", err)
	}
	return nil
}

// DeadLetters implements analytics.Store.
func (s *Store) DeadLetters(ctx context.Context, orgID string, limit int) ([]analytics.DeadLetter, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, `SELECT `+analytics.DeadLetterColumns+` FROM dead_letters FINAL WHERE org_id = ?
		ORDER BY failed_at DESC, kind, model_id, event_id LIMIT ?`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("clickhouse dead letters: %w", err)
	}
	defer rows.Close()
	return analytics.ScanDeadLetters(rows)
}

// DeadLetterCount implements analytics.Store from the per-minute counts
// (dead_letter_minutes, kept by a materialized view).
func (s *Store) DeadLetterCount(ctx context.Context, orgID, modelID string, r analytics.Range) (int64, error) {
	if err := s.ensure(ctx); err != nil {
		return 0, err
	}
	var n uint64
	err := s.conn.QueryRow(ctx, `SELECT uniqExactMerge(events) FROM dead_letter_minutes
		WHERE org_id = ? AND model_id = ? AND minute >= ? AND minute < ?`, orgID, modelID, r.From.UnixMicro(), r.To.UnixMicro()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("clickhouse dead letter counts: %w", err)
	}
	return int64(n), nil
}
