package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// completionKey places a completion: its model, its id and its time.
func completionKey(c eventlog.Completion) (modelKey, string, time.Time) {
	return modelKey{c.OrgID, c.ModelID}, c.ID, c.Timestamp
}

// writeCompletions stores the completions whose id is stored for their
// model neither in completion_ids (any time: a client's retry of a
// completion_id comes with a new time) nor in completions at their own
// time (a replay of the log, or a crash between the two inserts below),
// then records the ids, then rewrites the minutes the batch touched. The
// rows go in before their ids, so that a crash between the two leaves
// rows that the replay finds by time; an id recorded twice is merged
// away.
func (s *Store) writeCompletions(ctx context.Context, cs []eventlog.Completion) error {
	if len(cs) == 0 {
		return nil
	}
	minutes := touched{}
	for _, c := range cs {
		k, _, t := completionKey(c)
		minutes.add(k, t)
	}
	unknown, err := s.unrecorded(ctx, cs)
	if err != nil {
		return err
	}
	fresh, err := fresh(ctx, s, "completions", unknown, completionKey)
	if err != nil {
		return err
	}
	if len(fresh) > 0 {
		if err := s.insertCompletions(ctx, fresh); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		if err := s.recordCompletionIDs(ctx, unknown); err != nil {
			return err
		}
	}
	if err := completionRollup.run(ctx, s, minutes); err != nil {
		return err
	}
	return s.rollupLLM(ctx, minutes)
}

// unrecorded returns the completions whose id completion_ids does not
// hold for their model.
func (s *Store) unrecorded(ctx context.Context, cs []eventlog.Completion) ([]eventlog.Completion, error) {
	ids := map[modelKey][]string{}
	for _, c := range cs {
		k := modelKey{c.OrgID, c.ModelID}
		ids[k] = append(ids[k], c.ID)
	}
	known := map[modelKey]map[string]bool{}
	for k, modelIDs := range ids {
		var err error
		known[k], err = s.found(ctx, modelIDs, `SELECT event_id FROM completion_ids
			WHERE org_id = ? AND model_id = ? AND `+idList.in("event_id"), k.org, k.model)
		if err != nil {
			return nil, err
		}
	}
	out := cs[:0:0]
	for _, c := range cs {
		if !known[modelKey{c.OrgID, c.ModelID}][c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// recordCompletionIDs adds the ids of cs to completion_ids.
func (s *Store) recordCompletionIDs(ctx context.Context, cs []eventlog.Completion) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO completion_ids (org_id, model_id, event_id, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, c := range cs {
		if err := batch.Append(c.OrgID, c.ModelID, c.ID, c.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	return nil
}
