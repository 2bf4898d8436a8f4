package app

import (
	"time"

	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
)

// codehostAPI is the code host's REST API as both roles call it: every
// connection passes the outbound guard (a code host on a private network
// must be in VIGIL_OUTBOUND_ALLOW).
func (a *App) codehostAPI() (*hostapi.GitHub, error) {
	guard, err := a.outboundGuard()
	if err != nil {
		return nil, err
	}
	return &hostapi.GitHub{BaseURL: a.cfg.CodehostAPIURL, Flavor: a.cfg.CodehostFlavor,
		Transport: guard.Client(10 * time.Second).Transport}, nil
}

// codehostOAuth is the code host's OAuth flow through the same guarded
// transport as host; nil when no OAuth application is configured.
func (a *App) codehostOAuth(host *hostapi.GitHub) *hostapi.OAuth {
	o := a.cfg.CodehostOAuth
	if o.ClientID == "" {
		return nil
	}
	return &hostapi.OAuth{URL: o.URL, ClientID: o.ClientID, ClientSecret: o.ClientSecret, StateKey: []byte(o.StateKey),
		ReturnURL: o.ReturnURL, Transport: host.Transport}
}
