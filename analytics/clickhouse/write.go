package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

var _ analytics.Sink = (*Store)(nil)

// Write implements analytics.Sink. ClickHouse has no transactions, so
// exactly-once counting rests on steps that are each idempotent: events
// already stored (same organization, model and event id) are left out of
// the insert (for predictions, found through the model's id filter and a
// read of the ids it may hold); predictions are then added to their minute and hour
// rollups, which record the log offsets they hold (writePredictions);
// metric values and completions have each minute the batch touched
// recomputed from the stored rows and written as a new version of that
// minute's rollup. A crash anywhere leaves at worst work that the replay
// completes without counting twice.
//
// An event no store can hold, or one ClickHouse refuses as data, fails the
// batch with an error wrapping analytics.ErrPermanent (see refused);
// anything else is retryable.
func (s *Store) Write(ctx context.Context, b analytics.Batch) error {
	return analytics.WriteChecked(ctx, b, s.write, refused)
}

func (s *Store) write(ctx context.Context, b analytics.Batch) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	if err := s.writePredictions(ctx, b.Predictions, b.Positions); err != nil {
		return err
	}
	if err := s.writeMetrics(ctx, b.Metrics); err != nil {
		return err
	}
	return s.writeCompletions(ctx, b.Completions)
}

// modelKey groups a batch's events by organization and model.
type modelKey struct{ org, model string }

// stored returns which of ids are stored already for the model. Metrics
// and completions have server-made ids, so only a replay of the log
// repeats one, with its original time: the search stays within [from, to]
// (Unix microseconds). (Predictions carry the caller's prediction_id,
// which a retry repeats with a new time: see classify.)
func (s *Store) stored(ctx context.Context, table string, k modelKey, from, to int64, ids []string) (map[string]bool, error) {
	return s.found(ctx, ids, `SELECT event_id FROM `+table+` WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts <= ? AND `+
		idList.in("event_id"), k.org, k.model, from, to)
}

// found returns the ids that q, a read of event_id among idList, finds
// with ids as the list.
func (s *Store) found(ctx context.Context, ids []string, q string, args ...any) (map[string]bool, error) {
	ctx, err := withList(ctx, idList, ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse dedup read: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("clickhouse dedup read: %w", err)
		}
		seen[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse dedup read: %w", err)
	}
	return seen, nil
}

// eventKey places an event: its model, its id and its time.
type eventKey[E any] func(E) (modelKey, string, time.Time)

// write stores the events of one kind not stored yet with insert, then
// rolls up every minute the batch touches with rollup, whether its events
// were stored before or not: a replay after a crash between the insert
// and the rollup repairs the rollup.
func write[E any](ctx context.Context, s *Store, table string, es []E, key eventKey[E],
	insert func(context.Context, []E) error, rollup func(context.Context, touched) error) error {
	if len(es) == 0 {
		return nil
	}
	minutes := touched{}
	for _, e := range es {
		k, _, t := key(e)
		minutes.add(k, t)
	}
	es, err := fresh(ctx, s, table, es, key)
	if err != nil {
		return err
	}
	if len(es) > 0 {
		if err := insert(ctx, es); err != nil {
			return err
		}
	}
	return rollup(ctx, minutes)
}

// fresh filters events down to those not stored yet, per model.
func fresh[E any](ctx context.Context, s *Store, table string, es []E, key eventKey[E]) ([]E, error) {
	type group struct {
		ids      []string
		from, to int64
	}
	groups := map[modelKey]*group{}
	for _, e := range es {
		k, id, t := key(e)
		ts := t.UnixMicro()
		g := groups[k]
		if g == nil {
			g = &group{from: ts, to: ts}
			groups[k] = g
		}
		g.ids = append(g.ids, id)
		g.from, g.to = min(g.from, ts), max(g.to, ts)
	}
	seen := map[modelKey]map[string]bool{}
	for k, g := range groups {
		ids, err := s.stored(ctx, table, k, g.from, g.to, g.ids)
		if err != nil {
			return nil, err
		}
		seen[k] = ids
	}
	out := es[:0:0]
	dup := map[modelKey]map[string]bool{}
	for _, e := range es {
		k, id, _ := key(e)
		if seen[k][id] || dup[k][id] {
			continue
		}
		if dup[k] == nil {
			dup[k] = map[string]bool{}
		}
		dup[k][id] = true
		out = append(out, e)
	}
	return out, nil
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func (s *Store) writeMetrics(ctx context.Context, ms []eventlog.Metric) error {
	return write(ctx, s, "metrics", ms, func(m eventlog.Metric) (modelKey, string, time.Time) {
		return modelKey{m.OrgID, m.ModelID}, m.ID, m.Timestamp
	}, s.insertMetrics, metricRollup.rewrite(s))
}

func (s *Store) insertMetrics(ctx context.Context, ms []eventlog.Metric) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO metrics (org_id, model_id, event_id, metric_type, value, metadata, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, m := range ms {
		meta, err := jsonText(m.Metadata)
		if err != nil {
			return err
		}
		if err := batch.Append(m.OrgID, m.ModelID, m.ID, m.MetricType, m.Value, meta, m.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	return nil
}

func (s *Store) insertCompletions(ctx context.Context, cs []eventlog.Completion) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO completions (org_id, model_id, event_id, provider, model_name,
		prompt, completion, prompt_tokens, completion_tokens, total_tokens, latency_ms, cost, metadata, error, toxicity,
		flagged, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, c := range cs {
		meta, err := jsonText(c.Metadata)
		if err != nil {
			return err
		}
		tox, flagged, err := analytics.ToxicityColumns(c.Toxicity)
		if err != nil {
			return err
		}
		if err := batch.Append(c.OrgID, c.ModelID, c.ID, c.Provider, c.ModelName, c.Prompt, c.Completion,
			c.Tokens.PromptTokens, c.Tokens.CompletionTokens, c.Tokens.TotalTokens, c.LatencyMS, c.Cost, meta,
			c.Error, tox, flagged, c.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	return nil
}
