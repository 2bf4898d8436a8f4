package app

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/store"
)

// outboundGuard is the guard of alert webhooks, with the operator's
// allow-list.
func (a *App) outboundGuard() (*outbound.Guard, error) {
	allow, err := outbound.ParseAllow(a.cfg.OutboundAllow)
	if err != nil {
		return nil, fmt.Errorf("VIGIL_OUTBOUND_ALLOW: %w", err)
	}
	return &outbound.Guard{Allow: allow}, nil
}

// webhookName is the settings key of an organization's webhook secrets.
func webhookName(orgID string) string { return "alert_webhook_secret:" + orgID }

// freshWebhookSecret is 64 hexadecimal characters from 32 random bytes.
func freshWebhookSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b)), nil
}

// storedWebhookKeys returns an organization's webhook secrets and their
// stored (sealed) text: created on first use and kept in the
// transactional store sealed with the master key.
func (a *App) storedWebhookKeys(ctx context.Context, box *secretbox.Keyring, orgID string) (alerts.WebhookKeys, string, error) {
	name := webhookName(orgID)
	fresh, err := freshWebhookSecret()
	if err != nil {
		return alerts.WebhookKeys{}, "", err
	}
	sealed, err := box.Seal([]byte(alerts.EncodeWebhookKeys(alerts.WebhookKeys{Current: fresh})), name)
	if err != nil {
		return alerts.WebhookKeys{}, "", err
	}
	v, err := a.store.Secret(ctx, name, sealed)
	if err != nil {
		return alerts.WebhookKeys{}, "", fmt.Errorf("load the webhook secret: %w", err)
	}
	text, err := box.Open(v, name)
	if err != nil {
		return alerts.WebhookKeys{}, "", err
	}
	k, err := alerts.DecodeWebhookKeys(string(text))
	return k, v, err
}

// webhookKeys returns each organization's webhook signing secrets.
func (a *App) webhookKeys(box *secretbox.Keyring) func(ctx context.Context, orgID string) (alerts.WebhookKeys, error) {
	return func(ctx context.Context, orgID string) (alerts.WebhookKeys, error) {
		k, _, err := a.storedWebhookKeys(ctx, box, orgID)
		return k, err
	}
}

// rotateWebhookSecret replaces an organization's webhook secret with a
// fresh one, the old one signing beside it for overlap. The stored text is
// swapped only if unchanged since read, so of two rotations at once one
// wins and the other answers the conflict.
func (a *App) rotateWebhookSecret(box *secretbox.Keyring) func(ctx context.Context, orgID string, overlap time.Duration) (alerts.WebhookKeys, error) {
	return func(ctx context.Context, orgID string, overlap time.Duration) (alerts.WebhookKeys, error) {
		k, old, err := a.storedWebhookKeys(ctx, box, orgID)
		if err != nil {
			return k, err
		}
		fresh, err := freshWebhookSecret()
		if err != nil {
			return k, err
		}
		next := k.Rotate(fresh, a.clock().Now(), overlap)
		sealed, err := box.Seal([]byte(alerts.EncodeWebhookKeys(next)), webhookName(orgID))
		if err != nil {
			return k, err
		}
		ok, err := a.store.ReplaceSecret(ctx, webhookName(orgID), old, sealed)
		if err != nil {
			return k, err
		}
		if !ok {
			return k, store.ErrConflict
		}
		return next, nil
	}
}

// smtpRelay is the configured SMTP relay, nil when none is.
func (a *App) smtpRelay() (*channels.SMTP, error) {
	c := a.cfg.SMTP
	if c.Addr == "" {
		return nil, nil
	}
	relay := &channels.SMTP{Addr: c.Addr, From: c.From, Username: c.Username, Password: c.Password, RequireTLS: c.RequireTLS}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("VIGIL_SMTP_CA_FILE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("VIGIL_SMTP_CA_FILE: no certificate in %s", c.CAFile)
		}
		relay.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return relay, nil
}

// initAlerting adds the alert evaluation and the delivery of alerts to the
// processor role.
func (a *App) initAlerting() error {
	guard, err := a.outboundGuard()
	if err != nil {
		return err
	}
	box, err := a.masterKey()
	if err != nil {
		return err
	}
	relay, err := a.smtpRelay()
	if err != nil {
		return err
	}
	disp := &channels.Dispatcher{Store: a.store, Guard: guard, Secrets: a.webhookKeys(box), Box: box, SMTP: relay, Clock: a.clock(), Logger: a.log,
		Attempted: a.metrics.AlertDelivery}
	ev := &alerting.Evaluator{Ledger: a.store, Readings: a.analytics, Findings: a.store, Clock: a.clock(), Tick: a.cfg.AlertTick,
		Settle: a.cfg.AlertSettle, Landing: a.landing, Metrics: alerting.NewMetrics(a.metrics.Registry), Logger: a.log,
		Outbox: func(r alerts.Rule, in alerts.Instance, event string) ([]alerts.Delivery, error) {
			return channels.Deliveries(r, in, event, a.clock().Now().UTC())
		}}
	a.services = append(a.services, service{"alert-evaluation", ev.Run}, service{"alert-delivery", disp.Run},
		service{"alert-target-reseal", a.resealTargets(box)})
	return nil
}

// alertsAPI is the alerts API with its guard and secrets.
func (a *App) alertsAPI(box *secretbox.Keyring) (*alerts.API, error) {
	guard, err := a.outboundGuard()
	if err != nil {
		return nil, err
	}
	return &alerts.API{Store: a.store, Readings: a.analytics, Findings: a.store, Clock: a.clock(), Targets: guard,
		WebhookKeys: a.webhookKeys(box), RotateWebhookSecret: a.rotateWebhookSecret(box), Deliveries: a.store, Statistics: a.store, Box: box}, nil
}

// resealTargets seals, once at start, the secret channel targets that
// rules stored earlier hold in clear (alerts.Reseal); a failure is logged
// and left to the next start.
func (a *App) resealTargets(box *secretbox.Keyring) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		n, err := alerts.Reseal(ctx, a.store, box)
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Warn("could not seal the alert channel targets stored in clear; the next start tries again", "sealed", n, "err", err)
		case n > 0:
			a.log.Info("sealed alert channel targets stored in clear", "rules", n)
		}
		<-ctx.Done()
		return nil
	}
}
