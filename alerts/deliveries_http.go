package alerts

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// checkTargets refuses a webhook or Slack target the outbound guard
// refuses (loopback, private, link-local, in any spelling, unless
// allow-listed): 422 naming the channel's target.
func (a *API) checkTargets(r Rule) error {
	g := a.Targets
	if g == nil {
		g = &outbound.Guard{}
	}
	var v web.Problems
	for i, ch := range r.Channels {
		if ch.Type != "webhook" && ch.Type != "slack" {
			continue
		}
		if _, err := g.CheckURL(ch.Target); err != nil {
			v.Add(fmt.Sprintf("notification_channels[%d].target", i), err.Error())
		}
	}
	return v.Err()
}

// webhookSecret answers GET /alerts/webhook-secret: the organization's
// secret that signs its webhook deliveries (alerts/channels), created on
// first use, and during a rotation's overlap the previous one's end.
func (a *API) webhookSecret(c *fiber.Ctx) error {
	if a.WebhookKeys == nil {
		return web.Unavailable("webhook signing is not configured in this process", 30*time.Second, nil)
	}
	k, err := a.WebhookKeys(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return c.JSON(newSecretView(k, a.Clock.Now()))
}

// rotateRequest is the body of POST /alerts/webhook-secret/rotate.
type rotateRequest struct {
	// OverlapHours is how long the previous secret still signs beside
	// the new one (default 24, at most MaxOverlapHours; 0 ends it now).
	OverlapHours *web.Int `json:"overlap_hours"`
}

// rotateWebhookSecret answers POST /alerts/webhook-secret/rotate: a new
// secret signs every webhook from now on; the previous one signs beside
// it, in the same header, until previous_valid_until. The answer is the
// only one that carries the new secret besides GET /alerts/webhook-secret.
func (a *API) rotateWebhookSecret(c *fiber.Ctx) error {
	if a.RotateWebhookSecret == nil {
		return web.Unavailable("webhook signing is not configured in this process", 30*time.Second, nil)
	}
	var q rotateRequest
	if len(c.Body()) > 0 {
		if err := web.Decode(c, &q); err != nil {
			return err
		}
	}
	overlap := DefaultOverlap
	if q.OverlapHours != nil {
		if *q.OverlapHours < 0 || *q.OverlapHours > MaxOverlapHours {
			var v web.Problems
			v.Add("overlap_hours", fmt.Sprintf("must be 0-%d", MaxOverlapHours))
			return v.Err()
		}
		overlap = time.Duration(*q.OverlapHours) * time.Hour
	}
	k, err := a.RotateWebhookSecret(c.UserContext(), identity.OrgID(c), overlap)
	if errors.Is(err, store.ErrConflict) {
		return web.Conflict("another rotation of the webhook secret happened at the same time: read it with GET /alerts/webhook-secret")
	} else if err != nil {
		return err
	}
	return c.JSON(newSecretView(k, a.Clock.Now()))
}

// secretView is the webhook secret as answered.
type secretView struct {
	Secret string `json:"secret"`
	// PreviousValidUntil is the end of the previous secret's overlap,
	// null when only the current secret signs.
	PreviousValidUntil *time.Time     `json:"previous_valid_until"`
	Algorithm          string         `json:"algorithm"`
	Signed             string         `json:"signed"`
	Headers            map[string]any `json:"headers"`
}

func newSecretView(k WebhookKeys, now time.Time) secretView {
	v := secretView{Secret: string(k.Current), Algorithm: "HMAC-SHA256",
		Signed: "the X-Vigil-Timestamp header's value, a dot, then the raw body; during a rotation's overlap X-Vigil-Signature " +
			"holds two comma-separated signatures, the new secret's first: accept either",
		Headers: map[string]any{"timestamp": "X-Vigil-Timestamp", "signature": "X-Vigil-Signature", "delivery": "X-Vigil-Delivery",
			"event": "X-Vigil-Event"}}
	if len(k.Signing(now)) > 1 {
		until := k.PreviousUntil.UTC()
		v.PreviousValidUntil = &until
	}
	return v
}

// deliveryView is a delivery as answered.
type deliveryView struct {
	ID            string         `json:"id"`
	Event         string         `json:"event"`
	ChannelIndex  int            `json:"channel_index"`
	ChannelType   string         `json:"channel_type"`
	Status        DeliveryStatus `json:"status"`
	Attempts      []Attempt      `json:"attempts"`
	NextAttemptAt *time.Time     `json:"next_attempt_at"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
}

// deliveries answers GET /alerts/instances/{alert_id}/deliveries: the
// delivery log of the alert, oldest first, every attempt with its outcome.
func (a *API) deliveries(c *fiber.Ctx) error {
	id, err := web.PathParam(c, "alert_id")
	if err != nil {
		return err
	}
	if _, err := a.Store.AlertInstance(c.UserContext(), identity.OrgID(c), id); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("alert")
	} else if err != nil {
		return err
	}
	if a.Deliveries == nil {
		return web.Unavailable("the delivery log is not available to this process", 30*time.Second, nil)
	}
	ds, err := a.Deliveries.AlertDeliveries(c.UserContext(), identity.OrgID(c), id)
	if err != nil {
		return err
	}
	out := make([]deliveryView, 0, len(ds))
	for _, d := range ds {
		v := deliveryView{ID: d.ID, Event: d.Event, ChannelIndex: d.ChannelIndex, ChannelType: d.Channel.Type, Status: d.Status,
			Attempts: d.Attempts, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
		if v.Attempts == nil {
			v.Attempts = []Attempt{}
		}
		if d.Status == DeliveryPending {
			next := d.NextAttemptAt.UTC()
			v.NextAttemptAt = &next
		}
		out = append(out, v)
	}
	return c.JSON(fiber.Map{"deliveries": out})
}
