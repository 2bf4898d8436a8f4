// Package connection serves an organization's connections to the code
// host: by personal access token (POST /codehost/connect/pat) or OAuth
// (GET /codehost/oauth/authorize and callback), listed, verified and
// deleted under /codehost/connections. A token is checked with the host
// before it is stored, sealed. An OAuth state is signed, expires and
// works once (SignState, OpenState and the store's consume).
//
// Tokens hands out every call's token: an expiring OAuth token is
// refreshed once across replicas (a mutex per connection in a process, a
// claim in the store across them), and a call the host answers 401 is
// renewed and asked again (Bind). One Tokens serves the process: the
// other code-host packages take it.
//
// It imports codehost, hostapi, identity, the platform and the store
// errors.
package connection
