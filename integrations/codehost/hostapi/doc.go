// Package hostapi is the code host's REST API as the code-host
// connection calls it (Host, over go-github: GitHub) and its OAuth token
// endpoint (OAuth: authorize URL, code exchange, refresh). GitHub.Flavor
// FlavorGitea speaks to a Gitea as well.
//
// Every call has a 10-second timeout (CallTimeout), follows no redirect,
// reads at most 5 MiB, is paced, and waits out a spent rate limit
// (X-RateLimit-Remaining 0 until X-RateLimit-Reset, or Retry-After)
// without calling the host: the caller gets a Busy error with the wait.
// A call whose context carries a Renewer (WithRenewer) and that the host
// answers 401 is asked again once with the renewed token. Answer and
// RepoAnswer turn the host's errors into the API's answers.
//
// It imports the platform's web package only; it must not import the
// store, the event log or another code-host package.
package hostapi
