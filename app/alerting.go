package app

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/processors/alerting"
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

// webhookSecrets returns each organization's webhook signing secret: 64
// hexadecimal characters, created on first use and kept in the
// transactional store sealed with the master key.
func (a *App) webhookSecrets(box *secretbox.Keyring) func(ctx context.Context, orgID string) ([]byte, error) {
	return func(ctx context.Context, orgID string) ([]byte, error) {
		name := "alert_webhook_secret:" + orgID
		fresh := make([]byte, 32)
		if _, err := rand.Read(fresh); err != nil {
			return nil, err
		}
		sealed, err := box.Seal([]byte(hex.EncodeToString(fresh)), name)
		if err != nil {
			return nil, err
		}
		v, err := a.store.Secret(ctx, name, sealed)
		if err != nil {
			return nil, fmt.Errorf("load the webhook secret: %w", err)
		}
		return box.Open(v, name)
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
	disp := &channels.Dispatcher{Store: a.store, Guard: guard, Secrets: a.webhookSecrets(box), Box: box, SMTP: relay, Clock: a.clock(), Logger: a.log}
	ev := &alerting.Evaluator{Ledger: a.store, Readings: a.analytics, Findings: a.store, Clock: a.clock(), Tick: a.cfg.AlertTick,
		Settle: a.cfg.AlertSettle, Logger: a.log,
		Outbox: func(r alerts.Rule, in alerts.Instance, event string) ([]alerts.Delivery, error) {
			return channels.Deliveries(r, in, event, a.clock().Now().UTC())
		}}
	a.services = append(a.services, service{"alert-evaluation", ev.Run}, service{"alert-delivery", disp.Run})
	return nil
}

// alertsAPI is the alerts API with its guard and secrets.
func (a *App) alertsAPI(box *secretbox.Keyring) (*alerts.API, error) {
	guard, err := a.outboundGuard()
	if err != nil {
		return nil, err
	}
	return &alerts.API{Store: a.store, Readings: a.analytics, Findings: a.store, Clock: a.clock(), Targets: guard,
		WebhookSecret: a.webhookSecrets(box), Deliveries: a.store, Statistics: a.store, Box: box}, nil
}
