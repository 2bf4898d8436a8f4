package channels

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/mail"
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
type SMTP = mail.Relay

// email sends the payload to the address through the relay.
func (d *Dispatcher) email(ctx context.Context, to string, p Payload) error {
	if d.SMTP == nil || d.SMTP.Addr == "" {
		return mail.ErrNoRelay
	}
	return mail.Send(ctx, d.SMTP, time.Now().Add(d.timeout()), to, message(d.SMTP.From, to, p, d.Clock.Now()))
}

// message is the e-mail: headers, then the summary, the details and the
// payload.
func message(from, to string, p Payload, now time.Time) []byte {
	return mail.Text(from, to, "[Vigil] "+p.Summary(), p.Summary()+"\n\n"+p.Details(), now,
		mail.Header{Name: "X-Vigil-Delivery", Value: p.DeliveryID}, mail.Header{Name: "X-Vigil-Event", Value: p.Event})
}
