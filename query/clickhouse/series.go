package clickhouse

import (
	"context"

	"github.com/vigilhq/vigil/query"
)

// read is the store's query.Reader; it creates the tables first.
func (s *Store) read(ctx context.Context, q string, args ...any) (query.ClosingRows, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	return s.query(ctx, q, args...)
}

// query is read without creating the tables.
func (s *Store) query(ctx context.Context, q string, args ...any) (query.ClosingRows, error) {
	return s.conn.Query(ctx, q, args...)
}

// MetricSeries implements query.Series from the newest version of each
// hour's and minute's rollup.
func (s *Store) MetricSeries(ctx context.Context, f query.MetricFilter, b query.Buckets) ([]query.Summary, error) {
	return query.ReadMetricSeries(ctx, s.read, tables, f, b)
}

// CompletionGroups implements query.Series from the newest version of
// each hour's and minute's rollup.
func (s *Store) CompletionGroups(ctx context.Context, orgID, modelID string, r query.Range) ([]query.CompletionGroup, error) {
	return query.ReadCompletionGroups(ctx, s.read, tables, orgID, modelID, r)
}
