package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/store"
)

// minuteMicros is a minute in Unix microseconds.
const minuteMicros = int64(60_000_000)

// LLMKey places an LLM rollup row: the provider, the model_name and the
// start of its minute or hour in Unix microseconds.
type LLMKey struct {
	Provider, Model string
	Start           int64
}

// AddCompletion counts one completion.
func (s *LLMSums) AddCompletion(c eventlog.Completion) {
	s.add(c.Error != "", c.Toxicity != nil, c.Toxicity != nil && c.Toxicity.Flagged, c.Tokens, c.Cost, c.LatencyMS)
}

func (s *LLMSums) add(failed, scored, flagged bool, t eventlog.Tokens, cost float64, latency *float64) {
	s.Completions++
	s.PromptTokens += t.PromptTokens
	s.CompletionTokens += t.CompletionTokens
	s.TotalTokens += t.TotalTokens
	s.Cost += cost
	if failed {
		s.Errors++
	}
	if scored {
		s.Scored++
	}
	if flagged {
		s.Flagged++
	}
	if latency != nil {
		s.AddLatency(*latency)
	}
}

// LLMBuckets sums completions into the buckets of width (Unix
// microseconds) they fall in.
type LLMBuckets map[LLMKey]*LLMSums

// at returns the sums of k, made when missing.
func (b LLMBuckets) at(k LLMKey) *LLMSums {
	s := b[k]
	if s == nil {
		s = &LLMSums{}
		b[k] = s
	}
	return s
}

// Completions sums cs by provider, model_name and bucket of width.
func (b LLMBuckets) Completions(cs []eventlog.Completion, width int64) {
	for _, c := range cs {
		ts := c.Timestamp.UnixMicro()
		b.at(LLMKey{c.Provider, c.ModelName, ts - mod(ts, width)}).AddCompletion(c)
	}
}

// Hours merges minute sums into hour sums.
func (b LLMBuckets) Hours() (LLMBuckets, error) {
	out := LLMBuckets{}
	for k, s := range b {
		k.Start -= mod(k.Start, hourMicros)
		if err := out.at(k).Merge(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mod is v modulo m, never negative.
func mod(v, m int64) int64 { return ((v % m) + m) % m }

// SumCompletions sums one model's stored completions (table, as reads see
// it) with a time in [from, to), Unix microseconds, by provider,
// model_name and minute: how a store rebuilds its LLM minutes from the
// rows.
func SumCompletions(ctx context.Context, read Reader, table, orgID, modelID string, from, to int64) (LLMBuckets, error) {
	rows, err := read(ctx, `SELECT provider, model_name, ts, CAST(error != '' AS Int64), CAST(toxicity != '' AS Int64),
		CAST(flagged AS Int64), prompt_tokens, completion_tokens, total_tokens, cost, latency_ms FROM `+table+`
		WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ?`, orgID, modelID, from, to)
	if err != nil {
		return nil, fmt.Errorf("sum completions: %w", err)
	}
	defer rows.Close()
	out := LLMBuckets{}
	for rows.Next() {
		var k LLMKey
		var ts, failed, scored, flagged int64
		var t eventlog.Tokens
		var cost float64
		var latency *float64
		if err := rows.Scan(&k.Provider, &k.Model, &ts, &failed, &scored, &flagged, &t.PromptTokens, &t.CompletionTokens,
			&t.TotalTokens, &cost, &latency); err != nil {
			return nil, fmt.Errorf("sum completions: %w", err)
		}
		k.Start = ts - mod(ts, minuteMicros)
		out.at(k).add(failed != 0, scored != 0, flagged != 0, t, cost, latency)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum completions: %w", err)
	}
	return out, nil
}

// ReadLLMRows reads one model's rows of an LLM rollup (table, whose
// bucket column is column) with a start in [from, to).
func ReadLLMRows(ctx context.Context, read Reader, table, column, orgID, modelID string, from, to int64) (LLMBuckets, error) {
	rows, err := read(ctx, `SELECT provider, model_name, `+column+`, `+LLMColumns+` FROM `+table+`
		WHERE org_id = ? AND model_id = ? AND `+column+` >= ? AND `+column+` < ?`, orgID, modelID, from, to)
	if err != nil {
		return nil, fmt.Errorf("llm rollup rows: %w", err)
	}
	defer rows.Close()
	out := LLMBuckets{}
	for rows.Next() {
		var k LLMKey
		var s LLMSums
		if err := s.Scan(rows, &k.Provider, &k.Model, &k.Start); err != nil {
			return nil, fmt.Errorf("llm rollup rows: %w", err)
		}
		if err := out.at(k).Merge(&s); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// ToxicityColumns are a completion's toxicity check as the completions
// table keeps it: JSON text (” without one), and 1 when flagged.
func ToxicityColumns(t *eventlog.Toxicity) (text string, flagged int64, err error) {
	if t == nil {
		return "", 0, nil
	}
	b, err := json.Marshal(t)
	if t.Flagged {
		flagged = 1
	}
	return string(b), flagged, err
}

// ReadCompletion implements Store.Completion on any engine: the
// organization's completion with the id, of whichever model, with its
// time and its toxicity check; store.ErrNotFound when there is none.
func ReadCompletion(ctx context.Context, read Reader, table, orgID, id string) (eventlog.Completion, error) {
	c := eventlog.Completion{OrgID: orgID, ID: id}
	rows, err := read(ctx, `SELECT model_id, provider, model_name, prompt, completion, ts, toxicity FROM `+table+`
		WHERE org_id = ? AND event_id = ? LIMIT 1`, orgID, id)
	if err != nil {
		return c, fmt.Errorf("read completion: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return c, fmt.Errorf("read completion: %w", err)
		}
		return c, store.ErrNotFound
	}
	var ts int64
	var tox string
	if err := rows.Scan(&c.ModelID, &c.Provider, &c.ModelName, &c.Prompt, &c.Completion, &ts, &tox); err != nil {
		return c, fmt.Errorf("read completion: %w", err)
	}
	c.Timestamp = time.UnixMicro(ts).UTC()
	if tox != "" {
		c.Toxicity = &eventlog.Toxicity{}
		if err := json.Unmarshal([]byte(tox), c.Toxicity); err != nil {
			return c, fmt.Errorf("stored toxicity check: %w", err)
		}
	}
	return c, nil
}

// Checks is the part of the analytical store that attaches a toxicity
// check made after a completion was stored (POST /llm/toxicity naming
// it).
type Checks interface {
	// AttachToxicity stores t as the toxicity check of the organization's
	// completion with the id, in place of any it had, and recounts the LLM
	// minute and hour holding the completion from the stored rows: a check
	// attached twice counts once. store.ErrNotFound when the organization
	// has no completion of that id.
	AttachToxicity(ctx context.Context, orgID, id string, t eventlog.Toxicity) error
}

// RecountLLM rebuilds one model's LLM minutes from its stored completions
// (table, as reads see it) with a time in [from, to), Unix microseconds,
// and has write store them ("llm_minutes", "minute"); then the hours
// holding them from the stored minutes (minutes, as reads see the minute
// rollup), written alike ("llm_hours", "hour"). Both engines recount so
// after a write, and after a check attached.
func RecountLLM(ctx context.Context, read Reader, table, minutes, orgID, modelID string, from, to int64,
	write func(table, column string, b LLMBuckets) error) error {
	sums, err := SumCompletions(ctx, read, table, orgID, modelID, from, to)
	if err != nil {
		return err
	}
	if err := write("llm_minutes", "minute", sums); err != nil {
		return err
	}
	from -= mod(from, hourMicros)
	if r := mod(to, hourMicros); r != 0 {
		to += hourMicros - r
	}
	stored, err := ReadLLMRows(ctx, read, minutes, "minute", orgID, modelID, from, to)
	if err != nil {
		return err
	}
	hrs, err := stored.Hours()
	if err != nil {
		return err
	}
	return write("llm_hours", "hour", hrs)
}
