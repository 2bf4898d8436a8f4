package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Times are stored as Unix microseconds, UTC.

func micros(t time.Time) int64 { return t.UTC().UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}

func fromNullMicros(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMicros(n.Int64)
	return &t
}

// JSON documents are stored as text.

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode JSON column: %w", err)
	}
	return string(b), nil
}

func fromJSON(s string, v any) error {
	if s == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode JSON column: %w", err)
	}
	return nil
}
