package ingest

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
)

// public is an event the logging endpoints take and answer with.
type public interface {
	eventlog.Prediction | eventlog.Metric | eventlog.Completion
}

// withoutOrg returns e as the API answers it, without the organization.
func withoutOrg[E public](e E) any {
	switch e := any(e).(type) {
	case eventlog.Prediction:
		e.OrgID = ""
		return e
	case eventlog.Metric:
		e.OrgID = ""
		return e
	case eventlog.Completion:
		e.OrgID = ""
		return e
	}
	return e
}

// answerEvent answers 201 with e as the API shows it, without the
// organization: a prediction written by eventlog.Prediction.AppendJSON
// straight into the response's body buffer, which fasthttp pools (the
// hottest answer of the API, without reflection or allocation), the
// others by Fiber's encoder.
func answerEvent[E public](c *fiber.Ctx, e E) error {
	p, ok := any(&e).(*eventlog.Prediction)
	if !ok {
		return c.Status(http.StatusCreated).JSON(withoutOrg(e))
	}
	p.OrgID = ""
	resp := c.Response()
	b, err := p.AppendJSON(resp.SwapBody(nil)[:0])
	if err != nil {
		return err
	}
	resp.SwapBody(b)
	resp.Header.SetContentType(fiber.MIMEApplicationJSON)
	c.Status(http.StatusCreated)
	return nil
}

// record encodes an event of kind for the log, keyed by the caller's
// organization and the model so that one model's events stay in order.
func record(kind string, c *fiber.Ctx, modelID string, event any) (eventlog.Record, error) {
	return orgRecord(kind, identity.OrgID(c), modelID, event)
}

func orgRecord(kind, orgID, modelID string, event any) (eventlog.Record, error) {
	b, err := eventlog.EncodeEvent(event)
	if err != nil {
		return eventlog.Record{}, err
	}
	return eventlog.Record{Kind: kind, Key: orgID + "/" + modelID, Value: b}, nil
}

// CompletionRecord is the record POST /llm/completions appends for e, for
// a caller that logs completions other than through that route (the
// workflow-tool receiver's LLM nodes).
func CompletionRecord(e eventlog.Completion) (eventlog.Record, error) {
	return orgRecord(eventlog.KindCompletion, e.OrgID, e.ModelID, e)
}
