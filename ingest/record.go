package ingest

import (
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

// record encodes an event of kind for the log, keyed by the caller's
// organization and the model so that one model's events stay in order.
func record(kind string, c *fiber.Ctx, modelID string, event any) (eventlog.Record, error) {
	b, err := eventlog.EncodeEvent(event)
	if err != nil {
		return eventlog.Record{}, err
	}
	return eventlog.Record{Kind: kind, Key: identity.OrgID(c) + "/" + modelID, Value: b}, nil
}
