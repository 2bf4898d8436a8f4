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
// A delivery's signature is checked before its body is read (API.deliver
// gives the order and each answer); Processor works the durable queue of
// deliveries with retries (Processor); an OAuth state is signed, expires
// and works once (oauthRoutes); an expiring token is refreshed once across
// replicas (Tokens); GitHub.Flavor speaks to Gitea as well.
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
