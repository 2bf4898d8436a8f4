package hostapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v75/github"
)

// Errors of the repository calls of Host besides ErrInvalidToken and
// ErrHostUnavailable.
var (
	// ErrNoRepository: the host has no such repository, or none the token
	// may see.
	ErrNoRepository = errors.New("codehost: the code host has no such repository for this token")
	// ErrNoPermission: the token may see the repository but not do this
	// (setting up a webhook needs admin access).
	ErrNoPermission = errors.New("codehost: the token lacks permission for this repository")
)

// Repository is a repository as the code host lists it.
type Repository struct {
	ID            int64  `json:"id"`
	Owner         string `json:"-"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	Private       bool   `json:"private"`
	DefaultBranch string `json:"default_branch"`
}

// Busy is the error of a host whose rate limit is spent: ErrHostUnavailable,
// with how long its rate-limit headers ask to wait.
type Busy struct {
	// Wait is until the limit resets (X-RateLimit-Reset or Retry-After).
	Wait time.Duration
	Err  error
}

func (b *Busy) Error() string { return fmt.Sprintf("%v (retry in %v)", b.Err, b.Wait) }

// Unwrap makes a Busy ErrHostUnavailable.
func (b *Busy) Unwrap() error { return ErrHostUnavailable }

// maxWait bounds the wait a host's headers may ask for.
const maxWait = time.Hour

// busy returns the wait the host's rate-limit headers ask for: Retry-After
// (secondary limits) or, when X-RateLimit-Remaining is 0, until
// X-RateLimit-Reset; ok false when they ask for none.
func busy(h http.Header, now time.Time) (time.Duration, bool) {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, maxWait), true
	}
	if h.Get("X-RateLimit-Remaining") != "0" {
		return 0, false
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return time.Minute, true
	}
	return min(max(time.Unix(reset, 0).Sub(now), time.Second), maxWait), true
}

// classifyRepo maps the host's answer to a repository call.
func classifyRepo(res *github.Response, err error) error {
	if e := passThrough(err); e != nil {
		return e
	}
	if res == nil {
		return fmt.Errorf("%w: %v", ErrHostUnavailable, err)
	}
	if d, ok := busy(res.Header, time.Now()); ok && (res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusTooManyRequests) {
		return &Busy{Wait: d, Err: err}
	}
	switch res.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("%w: %v", ErrInvalidToken, err)
	case http.StatusForbidden:
		return fmt.Errorf("%w: %v", ErrNoPermission, err)
	case http.StatusNotFound:
		return fmt.Errorf("%w: %v", ErrNoRepository, err)
	}
	return fmt.Errorf("%w: %v", ErrHostUnavailable, err)
}

func hostRepository(r *github.Repository) Repository {
	return Repository{ID: r.GetID(), Owner: r.GetOwner().GetLogin(), Name: r.GetName(), FullName: r.GetFullName(),
		Private: r.GetPrivate(), DefaultBranch: r.GetDefaultBranch()}
}

// Repositories implements Host: GET /user/repos, one page.
func (g *GitHub) Repositories(ctx context.Context, token string, page, perPage int) ([]Repository, error) {
	c, err := g.client(token)
	if err != nil {
		return nil, err
	}
	rs, res, err := c.Repositories.ListByAuthenticatedUser(ctx, &github.RepositoryListByAuthenticatedUserOptions{
		ListOptions: github.ListOptions{Page: page, PerPage: perPage}})
	if err != nil {
		return nil, classifyRepo(res, err)
	}
	out := make([]Repository, 0, len(rs))
	for _, r := range rs {
		out = append(out, hostRepository(r))
	}
	return out, nil
}

// Repository implements Host: GET /repos/{owner}/{repo}.
func (g *GitHub) Repository(ctx context.Context, token, owner, name string) (Repository, error) {
	c, err := g.client(token)
	if err != nil {
		return Repository{}, err
	}
	r, res, err := c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return Repository{}, classifyRepo(res, err)
	}
	return hostRepository(r), nil
}

// CreateHook implements Host: POST /repos/{owner}/{repo}/hooks, a JSON
// webhook of Events to url signed with secret, TLS verification on.
func (g *GitHub) CreateHook(ctx context.Context, token, owner, name, url string, secret []byte) (int64, error) {
	c, err := g.client(token)
	if err != nil {
		return 0, err
	}
	if g.Flavor == FlavorGitea {
		return createGiteaHook(ctx, c, owner, name, url, secret)
	}
	h, res, err := c.Repositories.CreateHook(ctx, owner, name, &github.Hook{
		Name:   github.Ptr("web"),
		Active: github.Ptr(true),
		Events: Events,
		Config: &github.HookConfig{URL: github.Ptr(url), ContentType: github.Ptr("json"), InsecureSSL: github.Ptr("0"),
			Secret: github.Ptr(string(secret))},
	})
	if err != nil {
		return 0, classifyRepo(res, err)
	}
	return h.GetID(), nil
}

// DeleteHook implements Host: DELETE /repos/{owner}/{repo}/hooks/{id}; a
// hook already gone is no error.
func (g *GitHub) DeleteHook(ctx context.Context, token, owner, name string, id int64) error {
	c, err := g.client(token)
	if err != nil {
		return err
	}
	res, err := c.Repositories.DeleteHook(ctx, owner, name, id)
	if err != nil {
		if err := classifyRepo(res, err); !errors.Is(err, ErrNoRepository) {
			return err
		}
	}
	return nil
}

// maxTreeFiles bounds the files read from a tree listing.
const maxTreeFiles = 100000

// File implements Host: GET /repos/{owner}/{repo}/contents/{path}?ref=,
// the raw content; ErrNoRepository when there is no such file.
func (g *GitHub) File(ctx context.Context, token, owner, name, filePath, ref string) ([]byte, error) {
	c, err := g.client(token)
	if err != nil {
		return nil, err
	}
	f, _, res, err := c.Repositories.GetContents(ctx, owner, name, filePath, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, classifyRepo(res, err)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: %s is a folder", ErrNoRepository, filePath)
	}
	s, err := f.GetContent()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHostUnavailable, err)
	}
	return []byte(s), nil
}

// Tree implements Host: GET /repos/{owner}/{repo}/git/trees/{ref}?recursive=1,
// the paths of its files (blobs).
func (g *GitHub) Tree(ctx context.Context, token, owner, name, ref string) ([]string, error) {
	c, err := g.client(token)
	if err != nil {
		return nil, err
	}
	t, res, err := c.Git.GetTree(ctx, owner, name, ref, true)
	if err != nil {
		return nil, classifyRepo(res, err)
	}
	var out []string
	for _, e := range t.Entries {
		if e.GetType() == "blob" && len(out) < maxTreeFiles {
			out = append(out, e.GetPath())
		}
	}
	return out, nil
}
