package sqlite

import (
	"context"

	"github.com/vigilhq/vigil/analytics"
)

// read is the store's analytics.Reader.
func (s *Store) read(ctx context.Context, q string, args ...any) (analytics.ClosingRows, error) {
	return s.db.QueryContext(ctx, q, args...)
}

// MetricSeries implements analytics.Series from the hour and minute rollups.
func (s *Store) MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error) {
	return analytics.ReadMetricSeries(ctx, s.read, tables, f, b)
}

// MetricSummariesByModel implements analytics.Series from the hour and
// minute rollups.
func (s *Store) MetricSummariesByModel(ctx context.Context, orgID, metricType string, modelIDs []string, r analytics.Range) (map[string]analytics.Summary, error) {
	in, err := modelList(modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadMetricSummariesByModel(ctx, s.read, tables, orgID, metricType, modelIDs, inModels, in, r)
}

// CompletionGroups implements analytics.Series from the hour and minute rollups.
func (s *Store) CompletionGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.CompletionGroup, error) {
	return analytics.ReadCompletionGroups(ctx, s.read, tables, orgID, modelID, r)
}
