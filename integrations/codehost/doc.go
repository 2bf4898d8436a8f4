// Package codehost is the code-host connection of spec 2 (B): connections
// by OAuth (GET /codehost/oauth/authorize and callback) or personal access
// token (POST /codehost/connect/pat, GET
// /codehost/connections, POST /codehost/connections/{id}/verify, DELETE
// /codehost/connections/{id}, GET .../{id}/repositories), tracked
// repositories (POST /codehost/repositories/track, GET, PATCH and DELETE
// /codehost/repositories/{id}, POST .../{id}/webhook, GET
// .../{id}/deliveries), the event delivery endpoint, POST
// /codehost/webhooks, with its signature check and its queue of
// deliveries that Processor works, and the pull-request automation under
// /codehost/automation/repositories/{id}. The secrets (the connection's
// token, the repository's webhook secret) are sealed at rest with
// platform/secretbox, bound to their record's id.
//
// # Names
//
// Owner, repository and branch names follow one rule each (OwnerPattern,
// NamePattern, BranchPattern), stated with the same patterns in the
// document; a test holds them equal.
//
// # Processing
//
// A received delivery is a row of a durable queue: Processor leases it,
// counts the attempt, and either records the outcome (processed) or, when
// the code host or the store fails, releases it for a retry after a
// doubling backoff (the host's rate-limit reset when later), failed for
// good after MaxAttempts. A push to a tracked branch (changed files), a
// tag created or a release published (the files of the tag's tree) is
// matched against the model path patterns; the model files that a model
// of .monitor.yml describes are registered as model versions when
// auto-register is on, and logged for review otherwise, as are all of
// them when the file is missing or invalid (its problems are kept).
//
// # Connections
//
// A token is checked with the code host (Host.Account, GET /user through
// go-github: 10-second timeout, no redirects followed, at most 5 MiB read)
// before it is stored: one the host refuses, or without the scopes repo
// and read:org, answers 422 naming personal_access_token; a host that
// cannot answer, 503. Verify asks again with the stored token.
//
// # OAuth
//
// GET /codehost/oauth/authorize (a signed-in user; OAuth configured)
// stores a fresh nonce for the caller and answers 302 to the code host's
// authorization page with a state: the nonce, organization, user and
// expiry (10 minutes), HMAC-SHA256-signed with the configured state key.
// GET /codehost/oauth/callback checks the signature (constant time), the
// expiry, that the caller is the user it was issued to, and consumes the
// nonce in one DELETE, so a state works once; then exchanges the code at
// the token endpoint (OAuth.Exchange: the outbound call's limits), checks
// the account's scopes as PAT connect does, stores the token sealed and
// answers 302 to the front end. Every refusal is a 422 naming state,
// code or error.
//
// # Refresh
//
// A grant with expires_in and refresh_token (the platform's expiring user
// tokens) stores the refresh token sealed (RefreshLabel) and the expiry.
// Tokens hands out every call's token: one expiring within a minute is
// refreshed first (OAuth.Refresh, grant_type refresh_token). A call the
// host answers 401 (any Host method, the context bound to the connection
// by Tokens.Call) refreshes the token and is asked again once with the
// new one; a second 401 is the call's answer. The refresh token is
// single use, so a refresh is single-flight: a mutex per connection in a
// process, and across replicas a claim in the store (30 seconds) that one
// wins while the others wait for the pair it stores. A refresh token the
// host refuses marks the connection reauthorization_required: verify
// says so, and calls with it answer 403 until the user authorizes again.
//
// # Gitea
//
// GitHub.Flavor FlavorGitea speaks to a Gitea's /api/v1, which follows
// GitHub's for users, repositories, contents, trees, hooks' deliveries
// (X-Hub-Signature-256, X-GitHub-Event, X-GitHub-Delivery) and issue
// comments. It differs in two places this package handles: Gitea reports
// no token scopes (Account reads GET /user/repos and GET /user/orgs, which
// Gitea answers 403 without read:repository and read:organization) and a
// hook is created with type gitea. Gitea has no check runs, and its
// branch protection API is not GitHub's: those calls fail on Gitea.
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
//     the signature, compared in constant time (401).
//
// A hook set up by hand at the spec's path, /api/v1/codehost/webhooks
// without ?repository=, is located by its payload instead: the body is
// read for repository.full_name alone, and the signature is checked
// against the secret of each tracked repository of that name (of any
// organization, compared without case; at most 16); the first that
// verifies is the delivery's. A name no repository has and a signature
// no secret makes answer the same 401. Then, for either path:
//
//  4. only then are the X-GitHub-Delivery and X-GitHub-Event headers read
//     (422 naming the header when missing) and the body parsed as JSON
//     (400 when it is not);
//  5. the delivery id is recorded in the transactional store, once per
//     repository: a new one is kept as received (queued, for the event
//     processing that reads it; 202), a repeated one is acknowledged and
//     changes nothing (200). push, release and create are the subscribed
//     events; any other (ping) is recorded as ignored.
//
// Every call to the code host has a 10-second timeout, follows no
// redirect, reads at most 5 MiB, is paced, and waits out a spent rate
// limit (X-RateLimit-Remaining 0 until X-RateLimit-Reset, or Retry-After)
// without calling the host: the caller gets a Busy error with the wait.
//
// It imports identity, the registry's model type, the platform and the
// store errors; it must not import the event log, the analytical store,
// an engine or another API package.
package codehost
