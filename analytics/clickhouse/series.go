package clickhouse

import (
	"context"

	"github.com/vigilhq/vigil/analytics"
)

// read is the store's analytics.Reader; it creates the tables first.
func (s *Store) read(ctx context.Context, q string, args ...any) (analytics.ClosingRows, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	return s.query(ctx, q, args...)
}

// query is read without creating the tables.
func (s *Store) query(ctx context.Context, q string, args ...any) (analytics.ClosingRows, error) {
	return s.conn.Query(ctx, q, args...)
}

// MetricSeries implements analytics.Series from the newest version of each
// hour's and minute's rollup.
func (s *Store) MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error) {
	return analytics.ReadMetricSeries(ctx, s.read, tables, f, b)
}

// MetricSummariesByModel implements analytics.Series from the newest
// version of each hour's and minute's rollup, in one query for all the
// models.
func (s *Store) MetricSummariesByModel(ctx context.Context, orgID, metricType string, modelIDs []string, r analytics.Range) (map[string]analytics.Summary, error) {
	ctx, err := withList(ctx, modelList, modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadMetricSummariesByModel(ctx, s.read, tables, orgID, metricType, modelIDs, modelList.in("model_id"), nil, r)
}

// CompletionGroups implements analytics.Series from the newest version of
// each hour's and minute's rollup.
func (s *Store) CompletionGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.CompletionGroup, error) {
	return analytics.ReadCompletionGroups(ctx, s.read, tables, orgID, modelID, r)
}
