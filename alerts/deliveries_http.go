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
// first use.
func (a *API) webhookSecret(c *fiber.Ctx) error {
	if a.WebhookSecret == nil {
		return web.Unavailable("webhook signing is not configured in this process", 30*time.Second, nil)
	}
	secret, err := a.WebhookSecret(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"secret": string(secret), "algorithm": "HMAC-SHA256",
		"signed": "the X-Vigil-Timestamp header's value, a dot, then the raw body",
		"headers": fiber.Map{"timestamp": "X-Vigil-Timestamp", "signature": "X-Vigil-Signature", "delivery": "X-Vigil-Delivery",
			"event": "X-Vigil-Event"}})
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
