// Package channels delivers alerts: a Dispatcher works off the
// transactional store's outbox of deliveries (alerts.Deliveries), one per
// alert event and channel of its rule, in the processor role. The
// evaluation stores an alert's deliveries (Deliveries) in the alert's own
// transaction (alerts.Ledger.FireAlert's outbox): an alert never commits
// without the pages it owes, and a pending delivery survives a restart
// and is claimed by one dispatcher at a time.
//
//   - webhook: POST of the JSON payload, signed. X-Vigil-Timestamp is the
//     Unix time of the attempt and X-Vigil-Signature is "sha256=" and the
//     hex HMAC-SHA256, under the organization's webhook secret (GET
//     /alerts/webhook-secret), of the timestamp, a dot and the raw body.
//     A receiver recomputes it over the raw body, compares in constant
//     time and refuses a timestamp more than 5 minutes from its clock: a
//     replayed delivery is then refused. After a rotation (POST
//     /alerts/webhook-secret/rotate) the previous secret signs beside the
//     new one until its overlap ends: the header then holds both
//     signatures, comma-separated, the new one first (SignAll; Verify
//     accepts either). X-Vigil-Delivery is the
//     delivery's id (the same on every attempt: receivers deduplicate by
//     it) and X-Vigil-Event the event.
//   - slack: POST of Slack's incoming-webhook format, {"text": ...}.
//   - email: a text message through the operator's SMTP relay, upgraded
//     with STARTTLS whenever the relay offers it (required with
//     SMTP.RequireTLS).
//
// Webhook and Slack targets pass platform/outbound's guard when the
// message is sent (the address dialled after resolution, no redirect
// followed): loopback, private and link-local targets fail unless the
// operator allow-lists them. An answer other than 2xx, a refusal or a
// timeout is a failed attempt; attempts are retried with exponential
// backoff (Backoff, doubled each time) up to MaxAttempts, each attempt
// recorded with its time, outcome, HTTP status or error and duration.
// The dispatcher runs beside the evaluation, never inside it, and sends
// each claimed delivery in its own goroutine with a timeout, so a channel
// that hangs or fails blocks neither the evaluation nor other channels.
//
// It imports alerts and the platform; it must not import an engine or the
// processors.
package channels
