package ingest

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// predictionRequest is one prediction as logged. The field names are
// exactly input_data and output_data; any other field is a 422 naming it.
type predictionRequest struct {
	ModelID      string         `json:"model_id"`
	PredictionID string         `json:"prediction_id"`
	InputData    map[string]any `json:"input_data"`
	OutputData   map[string]any `json:"output_data"`
	LatencyMS    *float64       `json:"latency_ms"`
	Metadata     map[string]any `json:"metadata"`
}

func (r *predictionRequest) model() string      { return r.ModelID }
func (r *predictionRequest) setModel(id string) { r.ModelID = id }

func (r *predictionRequest) validate() error {
	var v web.Problems
	v.Required("model_id", r.ModelID)
	v.MaxLen("prediction_id", r.PredictionID, 128)
	if r.InputData == nil {
		v.Add("input_data", "is required: an object of the model's inputs")
	}
	if r.OutputData == nil {
		v.Add("output_data", "is required: an object of the model's outputs")
	}
	checkLatency(&v, r.LatencyMS)
	return v.Err()
}

// event keeps the caller's prediction_id as the event id, or makes one.
func (r *predictionRequest) event(a *API, c *fiber.Ctx) Prediction {
	id := r.PredictionID
	if id == "" {
		id = uuid.Must(uuid.NewV7()).String()
	}
	return Prediction{OrgID: identity.OrgID(c), ModelID: r.ModelID, PredictionID: id, InputData: r.InputData,
		OutputData: r.OutputData, LatencyMS: r.LatencyMS, Metadata: orEmpty(r.Metadata), Timestamp: a.Clock.Now()}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (a *API) logPrediction(c *fiber.Ctx) error {
	return logOne[predictionRequest, Prediction](a, c, KindPrediction)
}

func (a *API) logPredictions(c *fiber.Ctx) error {
	return logBatch[predictionRequest, Prediction](a, c, KindPrediction, "predictions", MaxPredictionsPerBatch)
}
