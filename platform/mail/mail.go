// Package mail sends e-mail through the operator's SMTP relay: STARTTLS
// when the relay offers it (or refused without it when TLS is required),
// PLAIN authentication over TLS, one message to one recipient. The alert
// channels and the export shares send through it.
//
// It imports nothing of Vigil.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"time"
)

// Relay is the operator's mail relay.
type Relay struct {
	// Addr is host:port; From the envelope and header sender.
	Addr, From string
	// Username and Password, when set, authenticate (PLAIN, over TLS).
	Username, Password string
	// TLS configures STARTTLS (ServerName defaults to Addr's host; set
	// RootCAs for a relay with a private CA).
	TLS *tls.Config
	// RequireTLS refuses a relay that does not offer STARTTLS.
	RequireTLS bool
}

// ErrNoRelay is the error of Send without a configured relay.
var ErrNoRelay = errors.New("no SMTP relay is configured (VIGIL_SMTP_ADDR)")

// Send hands msg (headers and body, CRLF line ends) for to to the relay,
// giving up at deadline (or ctx's, if earlier).
func Send(ctx context.Context, cfg *Relay, deadline time.Time, to string, msg []byte) error {
	if cfg == nil || cfg.Addr == "" {
		return ErrNoRelay
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("SMTP address: %w", err)
	}
	if t, ok := ctx.Deadline(); ok && t.Before(deadline) {
		deadline = t
	}
	conn, err := (&net.Dialer{Deadline: deadline}).DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("vigil"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		tc := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
		if cfg.TLS != nil {
			tc = cfg.TLS.Clone()
			if tc.ServerName == "" {
				tc.ServerName = host
			}
		}
		if err := c.StartTLS(tc); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	} else if cfg.RequireTLS {
		return errors.New("the SMTP relay does not offer STARTTLS and TLS is required")
	}
	if cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", cfg.Username, cfg.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(cfg.From); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
