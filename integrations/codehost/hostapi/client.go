package hostapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v75/github"
)

// Events are the event types a webhook subscribes to.
var Events = []string{"push", "release", "create"}

// RequiredScopes are what a connection's token must carry.
var RequiredScopes = []string{"repo", "read:org"}

// Errors of Host.Account.
var (
	// ErrInvalidToken: the code host refuses the token.
	ErrInvalidToken = errors.New("codehost: the code host refuses the token")
	// ErrHostUnavailable: the code host could not be asked (network,
	// timeout, 5xx, rate limit).
	ErrHostUnavailable = errors.New("codehost: the code host is unavailable")
)

// Account is who a token acts as.
type Account struct {
	Username string
	Email    string
	// Scopes are the token's OAuth scopes as the host reports them.
	Scopes []string
}

// Missing returns the required scopes the account lacks (write:org and
// admin:org include read:org; on Gitea, read:repository stands for repo
// and read:organization for read:org).
func (a Account) Missing() []string {
	var out []string
	for _, s := range RequiredScopes {
		ok := slices.Contains(a.Scopes, s)
		switch s {
		case "read:org":
			ok = ok || slices.Contains(a.Scopes, "write:org") || slices.Contains(a.Scopes, "admin:org") || slices.Contains(a.Scopes, giteaOrgScope)
		case "repo":
			ok = ok || slices.Contains(a.Scopes, giteaRepoScope)
		}
		if !ok {
			out = append(out, s)
		}
	}
	return out
}

// Host is the code host's REST API as the connection uses it.
type Host interface {
	// Account returns the token's account; ErrInvalidToken when the host
	// refuses the token, ErrHostUnavailable when it cannot answer.
	Account(ctx context.Context, token string) (Account, error)
	// Repositories returns one page (1-based) of the repositories the
	// token may see.
	Repositories(ctx context.Context, token string, page, perPage int) ([]Repository, error)
	// Repository returns owner/name; ErrNoRepository when the token
	// cannot see it.
	Repository(ctx context.Context, token, owner, name string) (Repository, error)
	// CreateHook creates a webhook of Events on owner/name posting to url,
	// signed with secret, and returns its id; ErrNoPermission without
	// admin access.
	CreateHook(ctx context.Context, token, owner, name, url string, secret []byte) (int64, error)
	// DeleteHook removes the webhook id; one already gone is no error.
	DeleteHook(ctx context.Context, token, owner, name string, id int64) error
	// File returns the content of a file at ref; ErrNoRepository when
	// there is none.
	File(ctx context.Context, token, owner, name, path, ref string) ([]byte, error)
	// Tree returns the paths of the files at ref.
	Tree(ctx context.Context, token, owner, name, ref string) ([]string, error)
	Automation
}

// Limits of every outbound call: CallTimeout bounds one call.
const (
	CallTimeout     = 10 * time.Second
	maxResponseBody = 5 << 20
)

// GitHub is Host over the platform's REST API through go-github: every
// call has a timeout, follows no redirect and reads at most
// maxResponseBody bytes of a response.
//
// GitHub.Flavor FlavorGitea speaks to a Gitea's /api/v1, which follows
// GitHub's for users, repositories, contents, trees, hooks' deliveries
// (X-Hub-Signature-256, X-GitHub-Event, X-GitHub-Delivery) and issue
// comments. It differs in two places this package handles: Gitea reports
// no token scopes (Account reads GET /user/repos and GET /user/orgs, which
// Gitea answers 403 without read:repository and read:organization) and a
// hook is created with type gitea. Gitea has no check runs, and its
// branch protection API is not GitHub's: those calls fail on Gitea.
type GitHub struct {
	// BaseURL is the REST API's root, e.g. https://api.github.com/.
	BaseURL string
	// Transport defaults to http.DefaultTransport; the application's
	// passes platform/outbound's guard.
	Transport http.RoundTripper
	// Flavor is FlavorGitHub (or "") or FlavorGitea.
	Flavor string

	once  sync.Once
	pacer *pacer
}

func (g *GitHub) client(token string) (*github.Client, error) {
	base := g.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	g.once.Do(func() { g.pacer = &pacer{} })
	c := github.NewClient(outboundClient(renewing{paced{g.pacer, base}})).WithAuthToken(token)
	u, err := url.Parse(g.BaseURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("codehost: API URL %q is not an http(s) URL", g.BaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	c.BaseURL = u
	return c, nil
}

// Account implements Host: GET /user, its scopes from X-OAuth-Scopes.
func (g *GitHub) Account(ctx context.Context, token string) (Account, error) {
	c, err := g.client(token)
	if err != nil {
		return Account{}, err
	}
	if g.Flavor == FlavorGitea {
		return g.giteaAccount(ctx, c)
	}
	u, res, err := c.Users.Get(ctx, "")
	if err != nil {
		return Account{}, classify(res, err)
	}
	a := Account{Username: u.GetLogin(), Email: u.GetEmail()}
	for _, s := range strings.Split(res.Header.Get("X-OAuth-Scopes"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			a.Scopes = append(a.Scopes, s)
		}
	}
	return a, nil
}

// classify tells a refused token from a host that cannot answer.
func classify(res *github.Response, err error) error {
	if e := passThrough(err); e != nil {
		return e
	}
	if res != nil && (res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden && res.Header.Get("X-RateLimit-Remaining") != "0") {
		return fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	return fmt.Errorf("%w: %v", ErrHostUnavailable, err)
}

// outboundClient is the client of every call to the code host over
// transport: CallTimeout, no redirect followed, at most maxResponseBody
// bytes read.
func outboundClient(transport http.RoundTripper) *http.Client {
	return &http.Client{Timeout: CallTimeout, Transport: limited{transport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// limited reads at most maxResponseBody bytes of every response.
type limited struct{ base http.RoundTripper }

func (l limited) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := l.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	res.Body = struct {
		io.Reader
		io.Closer
	}{&capped{r: res.Body, left: maxResponseBody}, res.Body}
	return res, nil
}

// capped fails a read past its limit instead of truncating silently.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("codehost: response larger than %d bytes", maxResponseBody)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
