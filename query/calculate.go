package query

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/evaluation"
)

// calculateFields are the fields POST /metrics/calculate accepts.
var calculateFields = []string{"model_id", "y_true", "y_pred", "y_score", "y_prob", "metric_types", "average", "pos_label", "labels"}

// calculation answers POST /metrics/calculate.
type calculation struct {
	ModelID      string             `json:"model_id"`
	Metrics      map[string]float64 `json:"metrics"`
	Average      string             `json:"average,omitempty"`
	PosLabel     *evaluation.Label  `json:"pos_label,omitempty"`
	Warnings     []string           `json:"warnings"`
	CalculatedAt time.Time          `json:"calculated_at"`
}

// calculate computes metrics from the labels and predictions in the body
// (package evaluation, checked against scikit-learn). Nothing is stored.
func (a *API) calculate(c *fiber.Ctx) error {
	var fields map[string]json.RawMessage
	if err := web.Decode(c, &fields); err != nil {
		return err
	}
	var v web.Problems
	for k := range fields {
		if !slices.Contains(calculateFields, k) {
			v.Add(k, "is not an accepted field")
		}
	}
	var modelID string
	if raw, ok := fields["model_id"]; !ok || json.Unmarshal(raw, &modelID) != nil || modelID == "" {
		v.Add("model_id", "is required: the model's id")
	}
	v.Text("model_id", modelID)
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.model(c, modelID); err != nil {
		return err
	}
	req, err := evaluation.ParseRequest(c.Body())
	if err != nil {
		return evaluationError(err)
	}
	res, err := evaluation.Compute(req)
	if err != nil {
		return evaluationError(err)
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return c.JSON(calculation{ModelID: modelID, Metrics: res.Metrics, Average: res.Average, PosLabel: res.PosLabel,
		Warnings: warnings, CalculatedAt: a.Clock.Now()})
}

// evaluationError turns the evaluation package's field errors into 422s
// naming the field.
func evaluationError(err error) error {
	var fe *evaluation.FieldError
	if errors.As(err, &fe) {
		return web.Invalid(fe.Field, fe.Reason)
	}
	return err
}
