package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// llmTables names the LLM rollups as reads see them: the newest version
// of each bucket.
var llmTables = analytics.LLMRollups(" FINAL")

// LLMGroups implements analytics.LLMSeries from the LLM rollups.
func (s *Store) LLMGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.LLMGroup, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	return analytics.ReadLLMGroups(ctx, s.query, llmTables, orgID, modelID, r)
}

// LLMTrend implements analytics.LLMSeries from the LLM rollups.
func (s *Store) LLMTrend(ctx context.Context, orgID, modelID string, b analytics.Buckets) ([]analytics.LLMPoint, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	return analytics.ReadLLMTrend(ctx, s.query, llmTables, orgID, modelID, b)
}

// rollupLLM rewrites, for each model, the LLM minutes from the first to
// the last minute the batch touched from the stored completions, then
// the hours around them from the minutes, each as a new version: like
// the completion rollups, a replay repairs what a crash left.
func (s *Store) rollupLLM(ctx context.Context, t touched) error {
	version := uint64(time.Now().UnixNano())
	for k, set := range t {
		_, lo, hi := span(set)
		write := func(table, column string, b analytics.LLMBuckets) error {
			return s.writeLLM(ctx, table, column, k, b, version)
		}
		if err := analytics.RecountLLM(ctx, s.query, "completions FINAL", llmTables.Minutes, k.org, k.model, lo, hi, write); err != nil {
			return err
		}
	}
	return nil
}

// fillLLM rebuilds one model's LLM minutes and hours from all its stored
// completions: the analytics.FillHours step for a store kept before them.
func (s *Store) fillLLM(ctx context.Context, orgID, modelID string) error {
	k := modelKey{orgID, modelID}
	minutes, err := analytics.SumCompletions(ctx, s.query, "completions FINAL", orgID, modelID, -1<<63, 1<<63-1)
	if err != nil {
		return err
	}
	hrs, err := minutes.Hours()
	if err != nil {
		return err
	}
	version := uint64(time.Now().UnixNano())
	if err := s.writeLLM(ctx, "llm_minutes", "minute", k, minutes, version); err != nil {
		return err
	}
	return s.writeLLM(ctx, "llm_hours", "hour", k, hrs, version)
}

// writeLLM inserts rows of an LLM rollup as their version.
func (s *Store) writeLLM(ctx context.Context, table, column string, k modelKey, b analytics.LLMBuckets, version uint64) error {
	if len(b) == 0 {
		return nil
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO `+table+` (org_id, model_id, provider, model_name, `+column+`,
		completions, errors, prompt_tokens, completion_tokens, total_tokens, cost, scored, flagged, latency_count,
		latency_sum, latency_sketch, version)`)
	if err != nil {
		return fmt.Errorf("clickhouse llm rollup: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for key, sums := range b {
		sketch, err := sums.Sketch()
		if err != nil {
			return err
		}
		if err := batch.Append(k.org, k.model, key.Provider, key.Model, key.Start, sums.Completions, sums.Errors,
			sums.PromptTokens, sums.CompletionTokens, sums.TotalTokens, sums.Cost, sums.Scored, sums.Flagged,
			sums.LatencyCount, sums.LatencySum, string(sketch), version); err != nil {
			return fmt.Errorf("clickhouse llm rollup: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse llm rollup: %w", err)
	}
	return nil
}

// Completion implements analytics.Store.
func (s *Store) Completion(ctx context.Context, orgID, id string) (eventlog.Completion, error) {
	if err := s.ensure(ctx); err != nil {
		return eventlog.Completion{}, err
	}
	return analytics.ReadCompletion(ctx, s.query, "completions FINAL", orgID, id)
}

// AttachToxicity implements analytics.Checks. ClickHouse 18.16 has no
// UPDATE (and ALTER ... UPDATE is an asynchronous mutation), so the
// completion's row is inserted again, server-side, with the check's
// columns: completions is a ReplacingMergeTree without a version column,
// whose merges and FINAL keep the row inserted last of those with one
// sort key. The row's minute and hour of the LLM rollups are then
// recounted from the stored rows as a new version.
func (s *Store) AttachToxicity(ctx context.Context, orgID, id string, t eventlog.Toxicity) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	c, err := analytics.ReadCompletion(ctx, s.query, "completions FINAL", orgID, id)
	if err != nil {
		return err
	}
	tox, flagged, err := analytics.ToxicityColumns(&t)
	if err != nil {
		return err
	}
	const columns = `org_id, model_id, event_id, provider, model_name, prompt, completion, prompt_tokens, completion_tokens,
		total_tokens, latency_ms, cost, metadata, error`
	ts := c.Timestamp.UnixMicro()
	if err := s.conn.Exec(ctx, `INSERT INTO completions (`+columns+`, toxicity, flagged, ts)
		SELECT `+columns+`, ?, toInt64(?), ts FROM completions FINAL
		WHERE org_id = ? AND model_id = ? AND ts = ? AND event_id = ?`,
		tox, flagged, orgID, c.ModelID, ts, id); err != nil {
		return fmt.Errorf("clickhouse attach toxicity: %w", err)
	}
	minutes := touched{}
	minutes.add(modelKey{orgID, c.ModelID}, c.Timestamp)
	return s.rollupLLM(ctx, minutes)
}
