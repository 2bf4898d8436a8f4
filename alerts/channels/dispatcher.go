package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// Defaults of a Dispatcher's zero fields.
const (
	DefaultTick        = 500 * time.Millisecond
	DefaultLease       = time.Minute
	DefaultMaxAttempts = 5
	DefaultBackoff     = 2 * time.Second
	DefaultTimeout     = 10 * time.Second
	// batch is how many due deliveries one pass claims.
	batch = 32
)

// Dispatcher sends the deliveries of the outbox. Store is required; the
// rest have working zero values (no Secrets: webhooks fail; no SMTP:
// e-mails fail; the zero Guard refuses every non-public address).
type Dispatcher struct {
	Store alerts.Deliveries
	Guard *outbound.Guard
	// Secrets returns an organization's webhook signing secrets: the
	// current one, and the previous one during a rotation's overlap (both
	// sign then).
	Secrets func(ctx context.Context, orgID string) (alerts.WebhookKeys, error)
	// Box opens sealed channel targets (alerts.SecretChannel: Slack
	// URLs), which stay sealed in the outbox too.
	Box   *secretbox.Keyring
	SMTP  *SMTP
	Clock clock.Clock
	// Tick is the pause between passes; Lease how long a claimed delivery
	// is another dispatcher's to leave alone; Backoff the pause after a
	// first failed attempt, doubled after each next one, up to
	// MaxAttempts; Timeout bounds one attempt.
	Tick, Lease, Backoff, Timeout time.Duration
	MaxAttempts                   int
	Logger                        *slog.Logger
	// Attempted, when set, is told each attempt's channel type and
	// outcome: "delivered", "retrying" (failed, to be tried again) or
	// "failed" (failed for good).
	Attempted func(channel, outcome string)

	once sync.Once
	http *http.Client
}

// Deliveries returns a pending delivery of the event for each channel of
// the rule, due at now: what the evaluation stores in the alert's own
// write (alerts.Outbox), so that an alert never commits without them.
func Deliveries(r alerts.Rule, in alerts.Instance, event string, now time.Time) ([]alerts.Delivery, error) {
	ds := make([]alerts.Delivery, 0, len(r.Channels))
	for i, ch := range r.Channels {
		id := uuid.NewString()
		body, err := json.Marshal(newPayload(event, id, in))
		if err != nil {
			return nil, fmt.Errorf("encode the payload of alert %s: %w", in.ID, err)
		}
		ds = append(ds, alerts.Delivery{ID: id, OrgID: in.OrgID, AlertID: in.ID, RuleID: r.ID, Event: event, ChannelIndex: i,
			Channel: ch, Payload: body, Status: alerts.DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now})
	}
	return ds, nil
}

// Enqueue stores a pending delivery of the event for each channel of the
// rule in a write of its own (a resend; the evaluation stores them in
// the alert's write through Deliveries).
func (d *Dispatcher) Enqueue(ctx context.Context, r alerts.Rule, in alerts.Instance, event string) error {
	ds, err := Deliveries(r, in, event, d.Clock.Now().UTC())
	if err != nil || len(ds) == 0 {
		return err
	}
	return d.Store.CreateAlertDeliveries(ctx, ds)
}

// Run sends due deliveries every tick until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	tick := d.Tick
	if tick <= 0 {
		tick = DefaultTick
	}
	clock.Every(ctx, tick, func(ctx context.Context) error { _, err := d.RunOnce(ctx); return err },
		func(err error) { d.logger().Warn("alert delivery pass failed; trying again next tick", "err", err) })
	return nil
}

// RunOnce claims the due deliveries and sends each in its own goroutine,
// waiting for all of them; it returns how many it attempted.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	now := d.Clock.Now().UTC()
	lease := d.Lease
	if lease <= 0 {
		lease = DefaultLease
	}
	due, err := d.Store.ClaimAlertDeliveries(ctx, now, now.Add(lease), batch)
	if err != nil {
		return 0, fmt.Errorf("claim alert deliveries: %w", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(due))
	for i, dl := range due {
		wg.Go(func() { errs[i] = d.attempt(ctx, dl) })
	}
	wg.Wait()
	return len(due), errors.Join(errs...)
}

// attempt sends one delivery once and records the attempt.
func (d *Dispatcher) attempt(ctx context.Context, dl alerts.Delivery) error {
	actx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	start := d.Clock.Now().UTC()
	status, err := d.send(actx, dl)
	end := d.Clock.Now().UTC()
	a := alerts.Attempt{At: start, OK: err == nil, StatusCode: status, DurationMS: float64(end.Sub(start).Microseconds()) / 1000}
	if err != nil {
		a.Error = err.Error()
	}
	dl.Attempts = append(dl.Attempts, a)
	dl.UpdatedAt = end
	switch {
	case err == nil:
		dl.Status = alerts.DeliveryDelivered
	case outbound.Refused(err) || len(dl.Attempts) >= d.maxAttempts():
		dl.Status = alerts.DeliveryFailed
	default:
		backoff := d.Backoff
		if backoff <= 0 {
			backoff = DefaultBackoff
		}
		dl.NextAttemptAt = end.Add(backoff << (len(dl.Attempts) - 1))
	}
	if d.Attempted != nil {
		d.Attempted(dl.Channel.Type, attemptOutcome(dl.Status))
	}
	if err != nil {
		d.logger().Warn("alert delivery attempt failed", "delivery_id", dl.ID, "alert_id", dl.AlertID, "channel", dl.Channel.Type,
			"attempt", len(dl.Attempts), "status", dl.Status, "err", err)
	} else {
		d.logger().Info("alert delivered", "delivery_id", dl.ID, "alert_id", dl.AlertID, "event", dl.Event, "channel", dl.Channel.Type,
			"attempt", len(dl.Attempts))
	}
	if werr := d.Store.UpdateAlertDelivery(context.WithoutCancel(ctx), dl); werr != nil {
		return fmt.Errorf("record delivery %s: %w", dl.ID, werr)
	}
	return nil
}

// Outcomes are the outcomes of an attempt, as Dispatcher.Attempted names
// them.
var Outcomes = []string{"delivered", "retrying", "failed"}

// attemptOutcome names an attempt's outcome by the status it left.
func attemptOutcome(status alerts.DeliveryStatus) string {
	switch status {
	case alerts.DeliveryDelivered:
		return "delivered"
	case alerts.DeliveryFailed:
		return "failed"
	}
	return "retrying"
}

// send sends the delivery through its channel.
func (d *Dispatcher) send(ctx context.Context, dl alerts.Delivery) (int, error) {
	p, err := decodePayload(dl.Payload)
	if err != nil {
		return 0, err
	}
	target, err := alerts.OpenTarget(d.Box, dl.OrgID, dl.Channel.Target)
	if err != nil {
		return 0, err
	}
	switch dl.Channel.Type {
	case "webhook":
		return d.webhook(ctx, dl.OrgID, target, dl.ID, dl.Event, dl.Payload)
	case "slack":
		return d.slack(ctx, target, p)
	case "email":
		return 0, d.email(ctx, target, p)
	}
	return 0, fmt.Errorf("unknown channel type %q", dl.Channel.Type)
}

func (d *Dispatcher) client() *http.Client {
	d.once.Do(func() { d.http = d.guard().Client(d.timeout()) })
	return d.http
}

// guard is Guard, or the zero guard that refuses every non-public
// address.
func (d *Dispatcher) guard() *outbound.Guard {
	if d.Guard != nil {
		return d.Guard
	}
	return &outbound.Guard{}
}

func (d *Dispatcher) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

func (d *Dispatcher) maxAttempts() int {
	if d.MaxAttempts > 0 {
		return d.MaxAttempts
	}
	return DefaultMaxAttempts
}

func (d *Dispatcher) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}
