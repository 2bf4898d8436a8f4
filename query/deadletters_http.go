package query

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// deadLetter is a dead letter as GET /dead-letters answers it.
type deadLetter struct {
	Kind     string          `json:"kind"`
	ModelID  string          `json:"model_id"`
	EventID  string          `json:"event_id"`
	Event    json.RawMessage `json:"event"`
	Reason   string          `json:"reason"`
	FailedAt time.Time       `json:"failed_at"`
}

// deadLetters lists the caller's organization's dead letters, newest
// first: the events the analytical store refused for good.
func (a *API) deadLetters(c *fiber.Ctx) error {
	limit, err := web.IntQuery(c, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	dls, err := a.Store.DeadLetters(c.UserContext(), identity.OrgID(c), limit)
	if err != nil {
		return err
	}
	out := make([]deadLetter, 0, len(dls))
	for _, d := range dls {
		out = append(out, deadLetter{Kind: d.Kind, ModelID: d.ModelID, EventID: d.EventID, Event: withoutOrg(d.Event),
			Reason: d.Reason, FailedAt: d.FailedAt})
	}
	return c.JSON(out)
}

// withoutOrg is an event's JSON without its org_id, as every response
// leaves it out; null when it is not a JSON object.
func withoutOrg(event []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(event, &m) != nil || m == nil {
		return json.RawMessage("null")
	}
	delete(m, "org_id")
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
