package ingest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
)

// request is one event as a caller sends it: predictionRequest,
// metricRequest, completionRequest. R is the request type, E its event.
type request[R, E any] interface {
	*R
	validate() error
	model() string
	setModel(id string)
	// event makes the event: an id, the caller's organization, the time.
	event(a *API, c *fiber.Ctx) E
}

// public is an event as the API answers it, without the organization.
type public interface{ public() any }

// logOne validates one event of kind, appends it durably and answers 201
// with it.
func logOne[R any, E public, PR request[R, E]](a *API, c *fiber.Ctx, kind string) error {
	var req R
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	r := PR(&req)
	if err := r.validate(); err != nil {
		return err
	}
	if _, err := a.model(c, r.model()); err != nil {
		return err
	}
	e := r.event(a, c)
	rec, err := record(kind, c, r.model(), e)
	if err != nil {
		return err
	}
	if err := a.appendRecords(c, []Record{rec}); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(e.public())
}

// batch is a batch call's body: one model, its items under field.
type batch struct {
	ModelID string
	Items   []json.RawMessage
}

// logBatch logs up to max events of kind for one model, read from the
// body's field (predictions, metrics). Invalid items are reported by index
// and field and skipped; the valid ones are appended together, durably,
// before the answer.
func logBatch[R any, E public, PR request[R, E]](a *API, c *fiber.Ctx, kind, field string, max int) error {
	var body map[string]json.RawMessage
	if err := web.Decode(c, &body); err != nil {
		return err
	}
	var b batch
	var v web.Problems
	for k, raw := range body {
		switch k {
		case "model_id":
			if json.Unmarshal(raw, &b.ModelID) != nil {
				v.Add(k, "must be of type string")
			}
		case field:
			if json.Unmarshal(raw, &b.Items) != nil || b.Items == nil {
				v.Add(k, "must be an array")
			}
		default:
			v.Add(k, "is not an accepted field")
		}
	}
	v.Required("model_id", b.ModelID)
	v.Text("model_id", b.ModelID)
	switch {
	case body[field] == nil:
		v.Add(field, "is required: an array")
	case len(b.Items) > max:
		v.Add(field, "at most "+strconv.Itoa(max)+" items per call")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := a.model(c, b.ModelID); err != nil {
		return err
	}
	res := batchResult{Total: len(b.Items)}
	recs := make([]Record, 0, len(b.Items))
	for i, raw := range b.Items {
		var req R
		r := PR(&req)
		err := web.DecodeBytes(raw, &req)
		if err == nil && r.model() != "" && r.model() != b.ModelID {
			err = web.Invalid("model_id", "must be the batch's model_id or left out")
		}
		if err == nil {
			r.setModel(b.ModelID)
			err = r.validate()
		}
		if err != nil {
			errs, fatal := itemErrors(i, err)
			if fatal != nil {
				return fatal
			}
			res.Errors = append(res.Errors, errs...)
			res.Failed++
			continue
		}
		rec, err := record(kind, c, b.ModelID, r.event(a, c))
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if len(recs) > 0 {
		if err := a.appendRecords(c, recs); err != nil {
			return err
		}
	}
	res.Logged = len(recs)
	return answerBatch(c, res)
}
