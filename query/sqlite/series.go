package sqlite

import (
	"context"

	"github.com/vigilhq/vigil/query"
)

// read is the store's query.Reader.
func (s *Store) read(ctx context.Context, q string, args ...any) (query.ClosingRows, error) {
	return s.db.QueryContext(ctx, q, args...)
}

// MetricSeries implements query.Series from the hour and minute rollups.
func (s *Store) MetricSeries(ctx context.Context, f query.MetricFilter, b query.Buckets) ([]query.Summary, error) {
	return query.ReadMetricSeries(ctx, s.read, tables, f, b)
}

// CompletionGroups implements query.Series from the hour and minute rollups.
func (s *Store) CompletionGroups(ctx context.Context, orgID, modelID string, r query.Range) ([]query.CompletionGroup, error) {
	return query.ReadCompletionGroups(ctx, s.read, tables, orgID, modelID, r)
}
