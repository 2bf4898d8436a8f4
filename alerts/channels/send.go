package channels

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Signature headers of a webhook.
const (
	HeaderTimestamp = "X-Vigil-Timestamp"
	HeaderSignature = "X-Vigil-Signature"
	HeaderDelivery  = "X-Vigil-Delivery"
	HeaderEvent     = "X-Vigil-Event"
)

// Sign is the signature of body sent at timestamp ts (Unix seconds):
// "sha256=" and the hex HMAC-SHA256 of ts, ".", body under secret.
func Sign(secret []byte, ts int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// SignAll is the X-Vigil-Signature header under each secret, joined by
// commas: "sha256=<new>,sha256=<old>" during a rotation's overlap.
func SignAll(secrets [][]byte, ts int64, body []byte) string {
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sigs[i] = Sign(s, ts, body)
	}
	return strings.Join(sigs, ",")
}

// Verify checks a webhook as a receiver should: the timestamp within
// tolerance of now, and one of the header's comma-separated signatures
// (two during a rotation's overlap) over the raw body, compared in
// constant time.
func Verify(secret []byte, body []byte, timestamp, signature string, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("missing or malformed timestamp")
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return errors.New("timestamp outside the tolerance: a replay, or a skewed clock")
	}
	want := []byte(Sign(secret, ts, body))
	for _, sig := range strings.Split(signature, ",") {
		if hmac.Equal(want, []byte(strings.TrimSpace(sig))) {
			return nil
		}
	}
	return errors.New("signature mismatch")
}

// attemptError is a failed attempt's cause, with the HTTP status if any.
type attemptError struct {
	status int
	msg    string
}

func (e *attemptError) Error() string { return e.msg }

// post sends body to target with headers through the guarded client and
// wants a 2xx; it reads at most 64 KiB of the answer.
func (d *Dispatcher) post(ctx context.Context, target string, body []byte, headers map[string]string) (int, error) {
	if _, err := d.guard().CheckURL(target); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Vigil-Alerts/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := d.client().Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, &attemptError{status: res.StatusCode, msg: "answered " + res.Status}
	}
	return res.StatusCode, nil
}

// webhook sends the signed payload.
func (d *Dispatcher) webhook(ctx context.Context, orgID, target, deliveryID, event string, body []byte) (int, error) {
	if d.Secrets == nil {
		return 0, errors.New("no webhook secret source is configured")
	}
	keys, err := d.Secrets(ctx, orgID)
	if err != nil {
		return 0, fmt.Errorf("webhook secret: %w", err)
	}
	now := d.Clock.Now()
	ts := now.Unix()
	return d.post(ctx, target, body, map[string]string{HeaderTimestamp: strconv.FormatInt(ts, 10),
		HeaderSignature: SignAll(keys.Signing(now), ts, body), HeaderDelivery: deliveryID, HeaderEvent: event})
}

// slack sends the payload in Slack's incoming-webhook format.
func (d *Dispatcher) slack(ctx context.Context, target string, p Payload) (int, error) {
	body, err := json.Marshal(map[string]string{"text": "*" + p.Summary() + "*\n" + p.Details()})
	if err != nil {
		return 0, err
	}
	return d.post(ctx, target, body, nil)
}

// SMTP is the operator's mail relay for e-mail channels.
type SMTP struct {
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

// email sends the payload to the address through the relay.
func (d *Dispatcher) email(ctx context.Context, to string, p Payload) error {
	cfg := d.SMTP
	if cfg == nil || cfg.Addr == "" {
		return errors.New("no SMTP relay is configured (VIGIL_SMTP_ADDR)")
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("SMTP address: %w", err)
	}
	dl := time.Now().Add(d.timeout())
	if t, ok := ctx.Deadline(); ok && t.Before(dl) {
		dl = t
	}
	conn, err := (&net.Dialer{Deadline: dl}).DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(dl)
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
	if _, err := w.Write(message(cfg.From, to, p, d.Clock.Now())); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// message is the e-mail: headers, then the summary, the details and the
// payload.
func message(from, to string, p Payload, now time.Time) []byte {
	var b strings.Builder
	subject := "[Vigil] " + p.Summary()
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@vigil>\r\n", from, to,
		strings.NewReplacer("\r", " ", "\n", " ").Replace(subject), now.Format(time.RFC1123Z), uuid.NewString())
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n")
	fmt.Fprintf(&b, "X-Vigil-Delivery: %s\r\nX-Vigil-Event: %s\r\n\r\n", p.DeliveryID, p.Event)
	body := p.Summary() + "\n\n" + p.Details()
	// The DATA writer dot-stuffs lines itself.
	for _, line := range strings.Split(body, "\n") {
		b.WriteString(line + "\r\n")
	}
	return []byte(b.String())
}
