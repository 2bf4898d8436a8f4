package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/schemas"
)

// Store is the analytical store on ClickHouse: the processors write it,
// the query API reads it. It creates its tables on first use, so Vigil
// starts, and keeps accepting events into the log, while ClickHouse is
// down.
type Store struct {
	conn driver.Conn

	mu    sync.Mutex
	ready bool
	// cache keeps the prediction buckets written last (rollupCache).
	cache rollupCache
	// filters keep each model's stored prediction ids (idFilters).
	filters idFilters
	// IDFilterBytes bounds the memory of the id filters that spare a
	// batch its read of prediction_ids (DefaultIDFilterBytes when 0; a
	// negative value keeps none, and every batch reads). A model whose
	// filter would not fit is read batch by batch.
	IDFilterBytes int
}

// New returns the store on conn. Its errors that mean ClickHouse cannot
// answer now wrap store.ErrUnavailable.
func New(conn driver.Conn) *Store { return &Store{conn: classified{conn}} }

// ensure creates the tables once; until it succeeds, every use retries.
//
// Once begun, the tables' creation runs to its end (or schemaTimeout) even
// when ctx ends: ClickHouse finishes a CREATE whose client has gone, so a
// caller that gave up half way would leave the server creating a table
// after the store, and the process, said they had stopped.
func (s *Store) ensure(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		return nil
	}
	schemaCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), schemaTimeout)
	err := createTables(schemaCtx, s.conn)
	cancel()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		hours, minutes string
		fill           func(ctx context.Context, orgID, modelID string) error
	}{
		{tables.PredictionHours, tables.PredictionMinutes, analytics.PredictionHours(s.query, tables, s.writeHours)},
		{tables.MetricHours, tables.MetricMinutes, metricRollup.fill(s)},
		{tables.CompletionHours, tables.CompletionMinutes, completionRollup.fill(s)},
		{"llm_hours", "completions", s.fillLLM},
	} {
		if err := analytics.FillHours(ctx, s.query, f.hours, f.minutes, f.fill); err != nil {
			return err
		}
	}
	s.ready = true
	return nil
}

// schemaTimeout bounds the creation of the tables, which takes ClickHouse
// 18.16 about a second.
const schemaTimeout = 30 * time.Second

// createTables runs the DDL of schemas/analytics/clickhouse.
func createTables(ctx context.Context, conn driver.Conn) error {
	files, err := fs.Glob(schemas.Analytics, "analytics/clickhouse/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		body, err := fs.ReadFile(schemas.Analytics, f)
		if err != nil {
			return err
		}
		for _, stmt := range strings.Split(string(body), "\n;\n") {
			if strings.TrimSpace(stripComments(stmt)) == "" {
				continue
			}
			if err := conn.Exec(ctx, stmt); err != nil && !columnExists(stmt, err) {
				return fmt.Errorf("clickhouse schema %s: %w", f, err)
			}
		}
	}
	return nil
}

// columnExists reports whether err is ClickHouse refusing stmt, an ADD
// COLUMN, because the column is there already: applied before.
func columnExists(stmt string, err error) bool {
	var ex *clickhouse.Exception
	return errors.As(err, &ex) && ex.Code == errColumnExists && strings.Contains(stripComments(stmt), " ADD COLUMN ")
}

// errColumnExists is ClickHouse's ILLEGAL_COLUMN, which ADD COLUMN answers
// for a column the table has.
const errColumnExists = 44

// stripComments drops -- comment lines.
func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Ping checks the server answers.
func (s *Store) Ping(ctx context.Context) error { return Check(ctx, s.conn) }
