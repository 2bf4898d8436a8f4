package ingest

import (
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/web"
)

// request is one event as a caller sends it: predictionRequest,
// metricRequest, completionRequest. R is the request type, E its event.
type request[R, E any] interface {
	*R
	validate() error
	model() string
	setModel(id string)
	// event makes the event: an id, the caller's organization, the time
	// (and a completion's cost from the prices when it came without one).
	event(a *API, c *fiber.Ctx) (E, error)
}

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
	e, err := r.event(a, c)
	if err != nil {
		return err
	}
	rec, err := record(kind, c, r.model(), e)
	if err != nil {
		return err
	}
	if err := a.appendRecords(c, []eventlog.Record{rec}); err != nil {
		return err
	}
	return answerEvent(c, e)
}

// logRecord makes r's event and encodes it for the log under kind, keyed
// by the caller's organization and modelID.
func logRecord[R any, E public, PR request[R, E]](a *API, c *fiber.Ctx, kind, modelID string, r PR) (eventlog.Record, error) {
	e, err := r.event(a, c)
	if err != nil {
		return eventlog.Record{}, err
	}
	return record(kind, c, modelID, e)
}

// batchItems is a batch call's body as read: its model, and its items,
// each decoded and checked: the valid ones in order, the errors of the
// others by index.
type batchItems[R any] struct {
	ModelID string
	Total   int
	Valid   []R
	Errors  []itemError
	Failed  int
}

// logBatch logs up to max events of kind for one model, read from the
// body's field (predictions, metrics). Invalid items are reported by index
// and field and skipped; the valid ones are appended together, durably,
// before the answer.
func logBatch[R any, E public, PR request[R, E]](a *API, c *fiber.Ctx, kind, field string, max int) error {
	b, err := readBatch[R, E, PR](c.Body(), field, max)
	if err != nil {
		return err
	}
	if _, err := a.model(c, b.ModelID); err != nil {
		return err
	}
	recs := make([]eventlog.Record, 0, len(b.Valid))
	for i := range b.Valid {
		rec, err := logRecord[R, E](a, c, kind, b.ModelID, PR(&b.Valid[i]))
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
	return answerBatch(c, batchResult{Logged: len(recs), Total: b.Total, Failed: b.Failed, Errors: b.Errors})
}

// readBatch reads a batch body whose items are under field. Nearly every
// batch is valid: readBatchFast decodes it in one pass. Any other is read
// again by readBatchSlow, which tells what is wrong.
func readBatch[R any, E public, PR request[R, E]](body []byte, field string, max int) (batchItems[R], error) {
	if b, ok := readBatchFast[R, E, PR](body, field, max); ok {
		return b, nil
	}
	return readBatchSlow[R, E, PR](body, field, max)
}

// readBatchFast decodes body in one pass, the items straight into R, and
// reports whether it is a valid batch of valid items only: exactly the
// members model_id and field, once each, as they are written, and no
// \u0000 escape anywhere (web.DecodeMembers). On false, the batch is left
// to readBatchSlow, so that every answer but a valid batch's is its.
func readBatchFast[R any, E public, PR request[R, E]](body []byte, field string, max int) (batchItems[R], bool) {
	var b batchItems[R]
	err := web.DecodeMembers(body, func(name string) any {
		switch name {
		case "model_id":
			return &b.ModelID
		case field:
			return &b.Valid
		}
		return nil
	})
	var v web.Problems
	checkBatch(&v, b.ModelID, field, len(b.Valid), b.Valid != nil, max)
	if err != nil || v.Err() != nil {
		return b, false
	}
	for i := range b.Valid {
		if checkItem[R, E, PR](&b.Valid[i], b.ModelID) != nil {
			return b, false
		}
	}
	b.Total = len(b.Valid)
	return b, true
}

// readBatchSlow reads body member by member, then each item on its own, as
// the JSON text of each: a 400 or 422 for the body, or the errors of the
// invalid items by index.
func readBatchSlow[R any, E public, PR request[R, E]](body []byte, field string, max int) (batchItems[R], error) {
	var b batchItems[R]
	var members map[string]json.RawMessage
	if err := web.DecodeBody(body, &members); err != nil {
		return b, err
	}
	var items []json.RawMessage
	var v web.Problems
	for k, raw := range members {
		switch k {
		case "model_id":
			if web.DecodeBytes(raw, &b.ModelID) != nil {
				v.Add(k, "must be of type string")
			}
		case field:
			if web.DecodeBytes(raw, &items) != nil || items == nil {
				v.Add(k, "must be an array")
			}
		default:
			v.Add(k, "is not an accepted field")
		}
	}
	checkBatch(&v, b.ModelID, field, len(items), members[field] != nil, max)
	if err := v.Err(); err != nil {
		return b, err
	}
	b.Total = len(items)
	for i, raw := range items {
		var req R
		err := web.DecodeBytes(raw, &req)
		if err == nil {
			err = checkItem[R, E, PR](&req, b.ModelID)
		}
		if err != nil {
			errs, fatal := itemErrors(i, err)
			if fatal != nil {
				return b, fatal
			}
			b.Errors = append(b.Errors, errs...)
			b.Failed++
			continue
		}
		b.Valid = append(b.Valid, req)
	}
	return b, nil
}

// checkBatch records the problems of a batch's model_id and of its n
// items under field; present tells whether field was sent.
func checkBatch(v *web.Problems, modelID, field string, n int, present bool, max int) {
	v.Required("model_id", modelID)
	v.Text("model_id", modelID)
	switch {
	case !present:
		v.Add(field, "is required: an array")
	case n == 0:
		v.Add(field, "must hold at least one item")
	case n > max:
		v.Add(field, "at most "+strconv.Itoa(max)+" items per call")
	}
}

// checkItem validates an item of a batch for model, whose model_id it
// takes: one of another model is refused.
func checkItem[R any, E public, PR request[R, E]](r PR, model string) error {
	if r.model() != "" && r.model() != model {
		return web.Invalid("model_id", "must be the batch's model_id or left out")
	}
	r.setModel(model)
	return r.validate()
}
