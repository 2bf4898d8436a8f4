package alerts

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Limits of a webhook secret rotation's overlap.
const (
	// DefaultOverlap is how long the previous secret still signs after a
	// rotation that names no overlap.
	DefaultOverlap = 24 * time.Hour
	// MaxOverlapHours bounds overlap_hours.
	MaxOverlapHours = 168
)

// WebhookKeys are an organization's webhook signing secrets: Current
// signs every webhook; after a rotation Previous signs too, beside it,
// until PreviousUntil, so that receivers can switch to the new secret
// without losing a delivery.
type WebhookKeys struct {
	Current       []byte
	Previous      []byte
	PreviousUntil time.Time
}

// Signing returns the secrets that sign at now: Current, then Previous
// while its overlap lasts.
func (k WebhookKeys) Signing(now time.Time) [][]byte {
	out := [][]byte{k.Current}
	if len(k.Previous) > 0 && now.Before(k.PreviousUntil) {
		out = append(out, k.Previous)
	}
	return out
}

// Rotate returns the keys after a rotation at now: fresh becomes current,
// the current one previous until now+overlap (whole seconds, as stored).
func (k WebhookKeys) Rotate(fresh []byte, now time.Time, overlap time.Duration) WebhookKeys {
	return WebhookKeys{Current: fresh, Previous: k.Current, PreviousUntil: now.Add(overlap).UTC().Truncate(time.Second)}
}

// keysDoc is WebhookKeys as stored (sealed) text.
type keysDoc struct {
	Current       string `json:"current"`
	Previous      string `json:"previous,omitempty"`
	PreviousUntil int64  `json:"previous_until,omitempty"`
}

// EncodeWebhookKeys is k as the text the store keeps (sealed).
func EncodeWebhookKeys(k WebhookKeys) string {
	b, _ := json.Marshal(keysDoc{Current: string(k.Current), Previous: string(k.Previous), PreviousUntil: k.PreviousUntil.Unix()})
	return string(b)
}

// DecodeWebhookKeys reads the stored text: a JSON document, or a bare
// secret as stored before rotation existed.
func DecodeWebhookKeys(s string) (WebhookKeys, error) {
	if !strings.HasPrefix(s, "{") {
		return WebhookKeys{Current: []byte(s)}, nil
	}
	var d keysDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil || d.Current == "" {
		return WebhookKeys{}, fmt.Errorf("a stored webhook secret that does not decode: %v", err)
	}
	k := WebhookKeys{Current: []byte(d.Current), Previous: []byte(d.Previous)}
	if d.Previous != "" {
		k.PreviousUntil = time.Unix(d.PreviousUntil, 0).UTC()
	}
	return k, nil
}
