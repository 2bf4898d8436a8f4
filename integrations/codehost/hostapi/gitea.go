package hostapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/go-github/v75/github"
)

// API flavors of the code host: GitHub (and GitHub Enterprise) or Gitea,
// whose /api/v1 follows GitHub's for users, repositories, contents, trees
// and issue comments but differs where createGiteaHook and giteaAccount say.
const (
	FlavorGitHub = "github"
	FlavorGitea  = "gitea"
)

// Flavors are the accepted values of GitHub.Flavor ("" is FlavorGitHub).
var Flavors = []string{FlavorGitHub, FlavorGitea}

// Gitea's token scopes that stand for RequiredScopes: Gitea reports no
// X-OAuth-Scopes, so giteaAccount finds them by reading what they allow.
const (
	giteaRepoScope = "read:repository"
	giteaOrgScope  = "read:organization"
)

// giteaAccount is Account on Gitea: GET /user, then GET /user/repos and
// GET /user/orgs (one item each), which Gitea answers 403 when the token
// lacks read:repository or read:organization. Writing (webhook setup,
// comments) is checked when done: Gitea answers 403, ErrNoPermission.
func (g *GitHub) giteaAccount(ctx context.Context, c *github.Client) (Account, error) {
	u, res, err := c.Users.Get(ctx, "")
	if err != nil {
		return Account{}, classify(res, err)
	}
	a := Account{Username: u.GetLogin(), Email: u.GetEmail(), Scopes: []string{}}
	for _, probe := range [][2]string{{giteaRepoScope, "user/repos?limit=1"}, {giteaOrgScope, "user/orgs?limit=1"}} {
		scope, path := probe[0], probe[1]
		req, err := c.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return Account{}, err
		}
		res, err := c.Do(ctx, req, nil)
		switch {
		case err == nil:
			a.Scopes = append(a.Scopes, scope)
		case res != nil && res.StatusCode == http.StatusForbidden && res.Header.Get("X-RateLimit-Remaining") != "0":
		default:
			return Account{}, classify(res, err)
		}
	}
	return a, nil
}

// giteaHook is Gitea's CreateHookOption: type gitea (GitHub's name "web"
// is refused); its deliveries carry X-Hub-Signature-256, X-GitHub-Event
// and X-GitHub-Delivery as GitHub's do.
type giteaHook struct {
	Type   string            `json:"type"`
	Config map[string]string `json:"config"`
	Events []string          `json:"events"`
	Active bool              `json:"active"`
}

// createGiteaHook is CreateHook on Gitea: POST /repos/{owner}/{repo}/hooks.
func createGiteaHook(ctx context.Context, c *github.Client, owner, name, target string, secret []byte) (int64, error) {
	req, err := c.NewRequest(http.MethodPost, fmt.Sprintf("repos/%s/%s/hooks", url.PathEscape(owner), url.PathEscape(name)), giteaHook{Type: "gitea",
		Config: map[string]string{"url": target, "content_type": "json", "secret": string(secret)}, Events: Events, Active: true})
	if err != nil {
		return 0, err
	}
	var h github.Hook
	res, err := c.Do(ctx, req, &h)
	if err != nil {
		return 0, classifyRepo(res, err)
	}
	return h.GetID(), nil
}
