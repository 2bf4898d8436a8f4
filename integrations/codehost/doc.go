// Package codehost is the code-host connection of spec 2 (B). So far it
// holds connections by personal access token (POST /codehost/connect/pat,
// GET /codehost/connections, POST /codehost/connections/{id}/verify,
// DELETE /codehost/connections/{id}), the event delivery endpoint, POST
// /codehost/webhooks, with its signature check and its record of delivery
// ids, and the records they need: connections and tracked repositories,
// whose secrets (the connection's token, the repository's webhook secret)
// are sealed at rest with platform/secretbox, bound to their record's id.
//
// # Connections
//
// A token is checked with the code host (Host.Account, GET /user through
// go-github: 10-second timeout, no redirects followed, at most 5 MiB read)
// before it is stored: one the host refuses, or without the scopes repo
// and read:org, answers 422 naming personal_access_token; a host that
// cannot answer, 503. Verify asks again with the stored token.
//
// # Delivery
//
// The webhook that setup creates on a tracked repository posts to
// /api/v1/codehost/webhooks?repository={id}: the repository's id names
// the secret to check with, since the body may not be read before its
// signature is. A delivery is checked in this order, and the first
// failure answers:
//
//  1. X-Hub-Signature-256 must be "sha256=" and 64 hexadecimal digits
//     (missing, sha1=, truncated or longer: 401);
//  2. repository must name a tracked repository (otherwise 401, as a
//     bad signature: nothing tells which ids exist);
//  3. HMAC-SHA256 of the raw body under the repository's secret must equal
//     the signature, compared in constant time (401);
//  4. only then are the X-GitHub-Delivery and X-GitHub-Event headers read
//     (422 naming the header when missing) and the body parsed as JSON
//     (400 when it is not);
//  5. the delivery id is recorded in the transactional store, once per
//     repository: a new one is kept as received (queued, for the event
//     processing that reads it; 202), a repeated one is acknowledged and
//     changes nothing (200). push, release and create are the subscribed
//     events; any other (ping) is recorded as ignored.
//
// It imports identity, the platform and the store errors; it must not
// import the event log, the analytical store, an engine or another API
// package.
package codehost
