package hostapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OAuth is the code host's OAuth web flow (authorization code grant) as a
// connection uses it: the browser is sent to URL's login/oauth/authorize,
// and the code it comes back with is exchanged at URL's
// login/oauth/access_token.
type OAuth struct {
	// URL is the code host's site root, e.g. https://github.com/.
	URL string
	// ClientID and ClientSecret identify the server's OAuth application.
	ClientID, ClientSecret string
	// StateKey signs the state (HMAC-SHA256), at least MinStateKey bytes.
	StateKey []byte
	// ReturnURL is where the callback sends the browser once connected,
	// with connection_id added to its query.
	ReturnURL string
	// Transport defaults to http.DefaultTransport; the application's
	// passes platform/outbound's guard.
	Transport http.RoundTripper
}

// OAuthScopes are the scopes authorize asks for (RequiredScopes).
var OAuthScopes = strings.Join(RequiredScopes, " ")

// endpoint returns the address of path under URL.
func (o *OAuth) endpoint(path string) (*url.URL, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("codehost: OAuth URL %q is not an http(s) URL", o.URL)
	}
	return u.JoinPath(path), nil
}

// AuthorizeURL is where the browser authorizes the application: it comes
// back to redirectURI with a code and state.
func (o *OAuth) AuthorizeURL(redirectURI, state string) (string, error) {
	u, err := o.endpoint("login/oauth/authorize")
	if err != nil {
		return "", err
	}
	u.RawQuery = url.Values{"client_id": {o.ClientID}, "redirect_uri": {redirectURI}, "scope": {OAuthScopes},
		"state": {state}}.Encode()
	return u.String(), nil
}

// Grant is what the token endpoint answers for a code or a refresh
// token. ExpiresIn and RefreshToken are set for the platform's expiring
// user tokens (expires_in seconds, a single-use refresh token).
type Grant struct {
	AccessToken  string `json:"access_token"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// Exchange trades code for an access token: ErrInvalidToken when the
// host refuses the code (bad, used or expired), ErrHostUnavailable when it
// cannot answer. The call has the timeout, size cap and no-redirect rule
// of every outbound call.
func (o *OAuth) Exchange(ctx context.Context, code, redirectURI string) (Grant, error) {
	return o.grant(ctx, url.Values{"code": {code}, "redirect_uri": {redirectURI}})
}

// Refresh trades a refresh token for a new access and refresh token
// (grant_type refresh_token): ErrInvalidToken when the host refuses it
// (revoked, used or expired: the user must authorize again),
// ErrHostUnavailable when it cannot answer.
func (o *OAuth) Refresh(ctx context.Context, refreshToken string) (Grant, error) {
	return o.grant(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}})
}

// grant posts form with the application's credentials to the token
// endpoint.
func (o *OAuth) grant(ctx context.Context, form url.Values) (Grant, error) {
	u, err := o.endpoint("login/oauth/access_token")
	if err != nil {
		return Grant{}, err
	}
	form.Set("client_id", o.ClientID)
	form.Set("client_secret", o.ClientSecret)
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return Grant{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	base := o.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	res, err := outboundClient(base).Do(req)
	if err != nil {
		return Grant{}, fmt.Errorf("%w: %v", ErrHostUnavailable, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		if d, ok := busy(res.Header, time.Now()); ok {
			return Grant{}, &Busy{Wait: d, Err: fmt.Errorf("token endpoint answered %s", res.Status)}
		}
		return Grant{}, fmt.Errorf("%w: the token endpoint answered %s", ErrHostUnavailable, res.Status)
	}
	var g Grant
	if err := json.NewDecoder(res.Body).Decode(&g); err != nil {
		return Grant{}, fmt.Errorf("%w: the token endpoint's answer: %v", ErrHostUnavailable, err)
	}
	if g.Error != "" || g.AccessToken == "" {
		return Grant{}, fmt.Errorf("%w: %s %s", ErrInvalidToken, g.Error, g.Description)
	}
	return g, nil
}

// GrantedScopes are the scopes of a grant's comma-separated scope.
func (g Grant) GrantedScopes() []string {
	out := []string{}
	for _, s := range strings.Split(g.Scope, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
