package ingest

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// predictionRequest is one prediction as logged. The field names are
// exactly input_data and output_data; any other field is a 422 naming it.
type predictionRequest struct {
	ModelID      string          `json:"model_id"`
	PredictionID string          `json:"prediction_id"`
	InputData    json.RawMessage `json:"input_data"`
	OutputData   json.RawMessage `json:"output_data"`
	LatencyMS    *float64        `json:"latency_ms"`
	Metadata     json.RawMessage `json:"metadata"`
}

func (r *predictionRequest) model() string      { return r.ModelID }
func (r *predictionRequest) setModel(id string) { r.ModelID = id }

func (r *predictionRequest) validate() error {
	var v web.Problems
	v.Required("model_id", r.ModelID)
	v.MaxLen("prediction_id", r.PredictionID, 128)
	object(&v, "input_data", r.InputData, "is required: an object of the model's inputs")
	object(&v, "output_data", r.OutputData, "is required: an object of the model's outputs")
	object(&v, "metadata", r.Metadata, "")
	checkLatency(&v, r.LatencyMS)
	return v.Err()
}

// event keeps the caller's prediction_id as the event id, or makes one.
func (r *predictionRequest) event(a *API, c *fiber.Ctx) (eventlog.Prediction, error) {
	id := r.PredictionID
	if id == "" {
		id = uuid.Must(uuid.NewV7()).String()
	}
	return eventlog.Prediction{OrgID: identity.OrgID(c), ModelID: r.ModelID, PredictionID: id, InputData: r.InputData,
		OutputData: r.OutputData, LatencyMS: r.LatencyMS, Metadata: emptyObject(r.Metadata), Timestamp: a.Clock.Now()}, nil
}

// object records a problem unless raw is a JSON object of valid UTF-8;
// when it is missing or null, required is the problem, none when empty.
func object(v *web.Problems, field string, raw json.RawMessage, required string) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		if required != "" {
			v.Add(field, required)
		}
	case !isObject(raw):
		v.Add(field, "must be of type object")
	case !utf8.Valid(raw):
		v.Add(field, "must be valid UTF-8")
	}
}

// isObject reports whether raw, valid JSON, is an object.
func isObject(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// emptyObject is raw, or {} when it is missing or null.
func emptyObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return emptyDocument
	}
	return raw
}

// emptyDocument is {}, shared: an event's documents are never written to.
var emptyDocument = json.RawMessage("{}")

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (a *API) logPrediction(c *fiber.Ctx) error {
	return logOne[predictionRequest, eventlog.Prediction](a, c, eventlog.KindPrediction)
}

func (a *API) logPredictions(c *fiber.Ctx) error {
	return logBatch[predictionRequest, eventlog.Prediction](a, c, eventlog.KindPrediction, "predictions", MaxPredictionsPerBatch)
}
