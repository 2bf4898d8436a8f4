package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// llmTables names the LLM rollups for the shared reads of package analytics.
var llmTables = analytics.LLMRollups("")

// LLMGroups implements analytics.LLMSeries from the LLM rollups.
func (s *Store) LLMGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.LLMGroup, error) {
	return analytics.ReadLLMGroups(ctx, s.read, llmTables, orgID, modelID, r)
}

// LLMTrend implements analytics.LLMSeries from the LLM rollups.
func (s *Store) LLMTrend(ctx context.Context, orgID, modelID string, b analytics.Buckets) ([]analytics.LLMPoint, error) {
	return analytics.ReadLLMTrend(ctx, s.read, llmTables, orgID, modelID, b)
}

// execer runs a statement: the store's database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// llm adds the completions stored for the first time to the LLM minutes
// and hours they fall in, merging each bucket's latency sketch with the
// stored one, in the batch's transaction.
func (w writer) llm(cs []eventlog.Completion) error {
	byModel := map[[2]string][]eventlog.Completion{}
	for _, c := range cs {
		k := [2]string{c.OrgID, c.ModelID}
		byModel[k] = append(byModel[k], c)
	}
	for m, list := range byModel {
		for _, res := range resolutions {
			b := analytics.LLMBuckets{}
			b.Completions(list, res.width.Microseconds())
			for k, s := range b {
				old, err := w.storedLLM(res, m[0], m[1], k)
				if err != nil {
					return err
				}
				if old != nil {
					if err := s.Merge(old); err != nil {
						return err
					}
				}
				if err := writeLLMRow(w.ctx, w.tx, res, m[0], m[1], k, s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// storedLLM reads the stored row of one LLM bucket, nil when there is
// none, by the table's whole primary key: a read by model and time alone
// scans every row of the model's, for each bucket (a batch of completions
// over 20,000 minutes took a minute).
func (w writer) storedLLM(res resolution, orgID, modelID string, k analytics.LLMKey) (*analytics.LLMSums, error) {
	rows, err := w.tx.QueryContext(w.ctx, `SELECT `+analytics.LLMColumns+` FROM llm_`+res.suffix+`
		WHERE org_id = ? AND model_id = ? AND provider = ? AND model_name = ? AND `+res.column+` = ?`,
		orgID, modelID, k.Provider, k.Model, k.Start)
	if err != nil {
		return nil, fmt.Errorf("analytics llm rollup: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	var s analytics.LLMSums
	if err := s.Scan(rows); err != nil {
		return nil, fmt.Errorf("analytics llm rollup: %w", err)
	}
	return &s, rows.Err()
}

// writeLLMRow writes one LLM rollup row in place of the stored one.
func writeLLMRow(ctx context.Context, db execer, res resolution, orgID, modelID string, k analytics.LLMKey, s *analytics.LLMSums) error {
	sketch, err := s.Sketch()
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO llm_`+res.suffix+`
		(org_id, model_id, provider, model_name, `+res.column+`, completions, errors, prompt_tokens, completion_tokens,
		 total_tokens, cost, scored, flagged, latency_count, latency_sum, latency_sketch)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		orgID, modelID, k.Provider, k.Model, k.Start, s.Completions, s.Errors, s.PromptTokens, s.CompletionTokens,
		s.TotalTokens, s.Cost, s.Scored, s.Flagged, s.LatencyCount, s.LatencySum, nullBytes(sketch)); err != nil {
		return fmt.Errorf("analytics llm rollup: %w", err)
	}
	return nil
}

// fillLLM rebuilds one model's LLM minutes and hours from its stored
// completions: analytics.FillHours's fill for a store kept before them.
func (s *Store) fillLLM(ctx context.Context, orgID, modelID string) error {
	minutes, err := analytics.SumCompletions(ctx, s.read, "completions", orgID, modelID, math.MinInt64, math.MaxInt64)
	if err != nil {
		return err
	}
	hours, err := minutes.Hours()
	if err != nil {
		return err
	}
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer end()
	for i, b := range []analytics.LLMBuckets{minutes, hours} {
		if err := writeLLMRows(ctx, tx, resolutions[i], orgID, modelID, b); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// writeLLMRows writes the rows of b in place of the stored ones.
func writeLLMRows(ctx context.Context, db execer, res resolution, orgID, modelID string, b analytics.LLMBuckets) error {
	for k, sums := range b {
		if err := writeLLMRow(ctx, db, res, orgID, modelID, k, sums); err != nil {
			return err
		}
	}
	return nil
}

// Completion implements analytics.Store.
func (s *Store) Completion(ctx context.Context, orgID, id string) (eventlog.Completion, error) {
	return analytics.ReadCompletion(ctx, s.read, "completions", orgID, id)
}

// AttachToxicity implements analytics.Checks: the completion's check
// updated and its minute and hour of the LLM rollups recounted from the
// stored rows, in one transaction.
func (s *Store) AttachToxicity(ctx context.Context, orgID, id string, t eventlog.Toxicity) error {
	tox, flagged, err := analytics.ToxicityColumns(&t)
	if err != nil {
		return err
	}
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer end()
	read := func(ctx context.Context, q string, args ...any) (analytics.ClosingRows, error) {
		return tx.QueryContext(ctx, q, args...)
	}
	c, err := analytics.ReadCompletion(ctx, read, "completions", orgID, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE completions SET toxicity = ?, flagged = ?
		WHERE org_id = ? AND model_id = ? AND event_id = ?`, tox, flagged, orgID, c.ModelID, id); err != nil {
		return fmt.Errorf("analytics attach toxicity: %w", err)
	}
	minute := resolutions[0].start(c.Timestamp)
	write := func(_, column string, b analytics.LLMBuckets) error {
		res := resolutions[0]
		if column == resolutions[1].column {
			res = resolutions[1]
		}
		return writeLLMRows(ctx, tx, res, orgID, c.ModelID, b)
	}
	if err := analytics.RecountLLM(ctx, read, "completions", llmTables.Minutes, orgID, c.ModelID, minute,
		minute+time.Minute.Microseconds(), write); err != nil {
		return err
	}
	return tx.Commit()
}
