package ingest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
)

// Prediction is a logged prediction as it travels through the log and is
// returned by the API. EventID is the caller's prediction_id or, without
// one, a server UUIDv7; the analytical store keeps one row per
// (organization, model, event id), so a replay or a client retry with the
// same prediction_id never counts twice.
type Prediction struct {
	OrgID        string         `json:"org_id,omitempty"`
	ModelID      string         `json:"model_id"`
	PredictionID string         `json:"prediction_id"`
	InputData    map[string]any `json:"input_data"`
	OutputData   map[string]any `json:"output_data"`
	LatencyMS    *float64       `json:"latency_ms"`
	Metadata     map[string]any `json:"metadata"`
	Timestamp    time.Time      `json:"timestamp"`
}

// Metric is a logged metric value.
type Metric struct {
	OrgID      string         `json:"org_id,omitempty"`
	ID         string         `json:"id"`
	ModelID    string         `json:"model_id"`
	MetricType string         `json:"metric_type"`
	Value      float64        `json:"value"`
	Metadata   map[string]any `json:"metadata"`
	Timestamp  time.Time      `json:"timestamp"`
}

// Tokens counts an LLM completion's tokens.
type Tokens struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Completion is a logged LLM completion.
type Completion struct {
	OrgID      string         `json:"org_id,omitempty"`
	ID         string         `json:"id"`
	ModelID    string         `json:"model_id"`
	Provider   string         `json:"provider"`
	ModelName  string         `json:"model_name"`
	Prompt     string         `json:"prompt"`
	Completion string         `json:"completion"`
	Tokens     Tokens         `json:"tokens"`
	LatencyMS  *float64       `json:"latency_ms"`
	Cost       float64        `json:"cost"`
	Metadata   map[string]any `json:"metadata"`
	Timestamp  time.Time      `json:"timestamp"`
}

// Documents returns the prediction's input_data, output_data and metadata
// as JSON text, as the analytical stores keep them.
func (p Prediction) Documents() (in, out, meta string, err error) {
	var b [3][]byte
	for i, v := range []map[string]any{p.InputData, p.OutputData, p.Metadata} {
		if b[i], err = json.Marshal(v); err != nil {
			return "", "", "", err
		}
	}
	return string(b[0]), string(b[1]), string(b[2]), nil
}

// SetDocuments decodes input_data, output_data and metadata from the JSON
// text Documents made.
func (p *Prediction) SetDocuments(in, out, meta string) error {
	for _, f := range []struct {
		s   string
		dst *map[string]any
	}{{in, &p.InputData}, {out, &p.OutputData}, {meta, &p.Metadata}} {
		if err := json.Unmarshal([]byte(f.s), f.dst); err != nil {
			return fmt.Errorf("decode stored prediction: %w", err)
		}
	}
	return nil
}

func (p Prediction) public() any { p.OrgID = ""; return p }
func (m Metric) public() any     { m.OrgID = ""; return m }
func (c Completion) public() any { c.OrgID = ""; return c }

// record encodes an event of kind for the log, keyed by the caller's
// organization and the model so that one model's events stay in order.
func record(kind string, c *fiber.Ctx, modelID string, event any) (Record, error) {
	b, err := json.Marshal(event)
	if err != nil {
		return Record{}, err
	}
	return Record{Kind: kind, Key: identity.OrgID(c) + "/" + modelID, Value: b}, nil
}
