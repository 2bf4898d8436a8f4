package eventlog

import (
	"encoding/json"
	"fmt"
	"time"

	gojson "github.com/goccy/go-json"
)

// Prediction is a logged prediction as it travels through the log and is
// returned by the API. PredictionID is the caller's prediction_id or,
// without one, a server UUIDv7; the analytical store keeps one row per
// (organization, model, prediction id), so a replay or a client retry
// with the same prediction_id never counts twice.
//
// InputData, OutputData and Metadata are JSON objects kept as the text the
// caller sent, never decoded into maps on the way: the ingest path only
// checks they are objects, and the stores keep the text as is.
type Prediction struct {
	OrgID        string          `json:"org_id,omitempty"`
	ModelID      string          `json:"model_id"`
	PredictionID string          `json:"prediction_id"`
	InputData    json.RawMessage `json:"input_data"`
	OutputData   json.RawMessage `json:"output_data"`
	LatencyMS    *float64        `json:"latency_ms"`
	Metadata     json.RawMessage `json:"metadata"`
	Timestamp    time.Time       `json:"timestamp"`

	// parsed holds the documents' fields once Parse has run.
	parsed *Parsed
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
	// Error is the provider's error (code or message) when the call
	// failed; "" when it succeeded.
	Error string `json:"error,omitempty"`
	// Toxicity is the completion's toxicity check, nil when it had none.
	Toxicity  *Toxicity `json:"toxicity,omitempty"`
	Timestamp time.Time `json:"timestamp"`
}

// Toxicity is a toxicity check of a text: the scorer that made it, its
// scores by head (toxicity, severe_toxicity, obscene, threat, insult,
// identity_attack) from 0 to 1, and whether any reached the threshold.
type Toxicity struct {
	Scorer  string             `json:"scorer"`
	Scores  map[string]float64 `json:"scores"`
	Flagged bool               `json:"flagged"`
}

// Documents returns the prediction's input_data, output_data and metadata
// as the JSON text the analytical stores keep.
func (p Prediction) Documents() (in, out, meta string) {
	return string(p.InputData), string(p.OutputData), string(p.Metadata)
}

// SetDocuments sets input_data, output_data and metadata from the JSON
// text Documents returned.
func (p *Prediction) SetDocuments(in, out, meta string) {
	p.InputData, p.OutputData, p.Metadata = json.RawMessage(in), json.RawMessage(out), json.RawMessage(meta)
	p.parsed = nil
}

// EncodeEvent encodes an event (Prediction, Metric, Completion) as the
// Value of its Record; DecodeEvent decodes one. A Prediction is written as
// the binary record (record.go), its documents kept as the JSON text they
// are; the other events as JSON with goccy/go-json, which writes for the
// event types the very bytes encoding/json writes (sorted map keys, HTML
// and invalid UTF-8 escaped, documents compacted) and reads them back to
// the same values (event_test.go), faster.
func EncodeEvent(event any) ([]byte, error) {
	switch p := event.(type) {
	case Prediction:
		return appendPrediction(make([]byte, 0, predictionSize(p)), p)
	case *Prediction:
		return appendPrediction(make([]byte, 0, predictionSize(*p)), *p)
	}
	b, err := gojson.Marshal(event)
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return b, nil
}

// predictionSize is about the size of p's binary record.
func predictionSize(p Prediction) int {
	return 3 + 3*2 + len(p.OrgID) + len(p.ModelID) + len(p.PredictionID) + 24 + 9 + 3*3 +
		len(p.InputData) + len(p.OutputData) + len(p.Metadata)
}

// DecodeEvent decodes the Value of a Record, made by EncodeEvent, into
// event, a pointer to the Prediction, Metric or Completion of its Kind. A
// Prediction is read from the binary record or from the JSON record the
// log held before it alike.
func DecodeEvent(value []byte, event any) error {
	if p, ok := event.(*Prediction); ok && IsBinary(value) {
		return decodePrediction(value, p)
	}
	if err := gojson.Unmarshal(value, event); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	return nil
}
