package embeddedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/vigilhq/vigil/eventlog"
)

var _ eventlog.Progress = (*Log)(nil)

// partition is the log's one partition, whatever the kinds asked for.
var partition = eventlog.Partition{}

// End implements eventlog.Progress: the sequence number the next record
// appended will get, for every kind at once (the log has one partition).
// Trimmed records still count: the sequence never goes back. A log that
// never had a record has no end.
func (l *Log) End(ctx context.Context, _ ...string) (eventlog.Offsets, error) {
	var last sql.NullInt64
	err := l.db.QueryRowContext(ctx, `SELECT seq FROM sqlite_sequence WHERE name = 'events'`).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("embeddedlog: read the log's end: %w", unavailable(err))
	}
	if !last.Valid {
		return eventlog.Offsets{}, nil // nothing ever appended
	}
	return eventlog.Offsets{partition: last.Int64 + 1}, nil
}

// Committed implements eventlog.Progress: the first sequence number group
// has not committed; nothing for a group that never polled.
func (l *Log) Committed(ctx context.Context, group string, _ ...string) (eventlog.Offsets, error) {
	var committed int64
	err := l.db.QueryRowContext(ctx, `SELECT committed FROM group_offsets WHERE consumer_group = ?`, group).Scan(&committed)
	if errors.Is(err, sql.ErrNoRows) {
		return eventlog.Offsets{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("embeddedlog: read %s's committed offset: %w", group, unavailable(err))
	}
	return eventlog.Offsets{partition: committed + 1}, nil
}
