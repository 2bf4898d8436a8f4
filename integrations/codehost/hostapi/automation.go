package hostapi

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/google/go-github/v75/github"
)

// Protection is a branch's required status checks.
type Protection struct {
	Branch string `json:"branch"`
	// Strict: a branch must be up to date with its base before merging.
	Strict   bool     `json:"strict"`
	Contexts []string `json:"required_checks"`
}

// CheckRun is a completed check run to post on a commit.
type CheckRun struct {
	Name, HeadSHA, DetailsURL string
	// Conclusion is success or failure.
	Conclusion     string
	Title, Summary string
}

// Comment is a pull request comment.
type Comment struct {
	ID   int64
	Body string
}

// Automation is the code host's REST API as the automation routes use it.
type Automation interface {
	// Protect requires contexts to pass before merging into branch.
	Protect(ctx context.Context, token, owner, name, branch string, strict bool, contexts []string) error
	// RequiredChecks returns branch's required checks; ErrNoRepository
	// when the branch is not protected.
	RequiredChecks(ctx context.Context, token, owner, name, branch string) (Protection, error)
	// SetRequiredChecks replaces branch's required checks.
	SetRequiredChecks(ctx context.Context, token, owner, name string, p Protection) error
	// CreateCheckRun posts a completed check run and returns its id.
	CreateCheckRun(ctx context.Context, token, owner, name string, run CheckRun) (int64, error)
	// Comments returns a pull request's comments, oldest first.
	Comments(ctx context.Context, token, owner, name string, pr int) ([]Comment, error)
	// CreateComment posts a comment on a pull request.
	CreateComment(ctx context.Context, token, owner, name string, pr int, body string) (Comment, error)
	// EditComment replaces a comment's body.
	EditComment(ctx context.Context, token, owner, name string, id int64, body string) (Comment, error)
}

// maxCommentPages bounds the pages of comments read to find a marker.
const maxCommentPages = 20

func branchPath(owner, name, branch string) string {
	return fmt.Sprintf("repos/%s/%s/branches/%s/protection", url.PathEscape(owner), url.PathEscape(name), url.PathEscape(branch))
}

// Protect implements Automation: PUT .../branches/{branch}/protection.
func (g *GitHub) Protect(ctx context.Context, token, owner, name, branch string, strict bool, contexts []string) error {
	c, err := g.client(token)
	if err != nil {
		return err
	}
	_, res, err := c.Repositories.UpdateBranchProtection(ctx, owner, name, branch, &github.ProtectionRequest{
		RequiredStatusChecks: &github.RequiredStatusChecks{Strict: strict, Contexts: &contexts}})
	if err != nil {
		return classifyRepo(res, err)
	}
	return nil
}

// RequiredChecks implements Automation.
func (g *GitHub) RequiredChecks(ctx context.Context, token, owner, name, branch string) (Protection, error) {
	c, err := g.client(token)
	if err != nil {
		return Protection{}, err
	}
	r, res, err := c.Repositories.GetRequiredStatusChecks(ctx, owner, name, branch)
	if err != nil {
		return Protection{}, classifyRepo(res, err)
	}
	p := Protection{Branch: branch, Strict: r.Strict, Contexts: []string{}}
	if r.Contexts != nil {
		p.Contexts = append(p.Contexts, *r.Contexts...)
	}
	return p, nil
}

// SetRequiredChecks implements Automation: PATCH
// .../protection/required_status_checks with the whole list (an empty
// one included, which go-github's request type would leave out).
func (g *GitHub) SetRequiredChecks(ctx context.Context, token, owner, name string, p Protection) error {
	c, err := g.client(token)
	if err != nil {
		return err
	}
	contexts := p.Contexts
	if contexts == nil {
		contexts = []string{}
	}
	req, err := c.NewRequest("PATCH", branchPath(owner, name, p.Branch)+"/required_status_checks",
		map[string]any{"strict": p.Strict, "contexts": contexts})
	if err != nil {
		return err
	}
	res, err := c.Do(ctx, req, nil)
	if err != nil {
		return classifyRepo(res, err)
	}
	return nil
}

// CreateCheckRun implements Automation: POST .../check-runs, completed.
func (g *GitHub) CreateCheckRun(ctx context.Context, token, owner, name string, run CheckRun) (int64, error) {
	c, err := g.client(token)
	if err != nil {
		return 0, err
	}
	now := github.Timestamp{Time: time.Now()}
	opts := github.CreateCheckRunOptions{Name: run.Name, HeadSHA: run.HeadSHA, Status: github.Ptr("completed"),
		Conclusion: github.Ptr(run.Conclusion), CompletedAt: &now,
		Output: &github.CheckRunOutput{Title: github.Ptr(run.Title), Summary: github.Ptr(run.Summary)}}
	if run.DetailsURL != "" {
		opts.DetailsURL = github.Ptr(run.DetailsURL)
	}
	r, res, err := c.Checks.CreateCheckRun(ctx, owner, name, opts)
	if err != nil {
		return 0, classifyRepo(res, err)
	}
	return r.GetID(), nil
}

// Comments implements Automation, reading at most maxCommentPages pages.
func (g *GitHub) Comments(ctx context.Context, token, owner, name string, pr int) ([]Comment, error) {
	c, err := g.client(token)
	if err != nil {
		return nil, err
	}
	var out []Comment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for range maxCommentPages {
		cs, res, err := c.Issues.ListComments(ctx, owner, name, pr, opts)
		if err != nil {
			return nil, classifyRepo(res, err)
		}
		for _, x := range cs {
			out = append(out, Comment{ID: x.GetID(), Body: x.GetBody()})
		}
		if res.NextPage == 0 {
			break
		}
		opts.Page = res.NextPage
	}
	return out, nil
}

// CreateComment implements Automation.
func (g *GitHub) CreateComment(ctx context.Context, token, owner, name string, pr int, body string) (Comment, error) {
	c, err := g.client(token)
	if err != nil {
		return Comment{}, err
	}
	x, res, err := c.Issues.CreateComment(ctx, owner, name, pr, &github.IssueComment{Body: github.Ptr(body)})
	if err != nil {
		return Comment{}, classifyRepo(res, err)
	}
	return Comment{ID: x.GetID(), Body: x.GetBody()}, nil
}

// EditComment implements Automation.
func (g *GitHub) EditComment(ctx context.Context, token, owner, name string, id int64, body string) (Comment, error) {
	c, err := g.client(token)
	if err != nil {
		return Comment{}, err
	}
	x, res, err := c.Issues.EditComment(ctx, owner, name, id, &github.IssueComment{Body: github.Ptr(body)})
	if err != nil {
		return Comment{}, classifyRepo(res, err)
	}
	return Comment{ID: x.GetID(), Body: x.GetBody()}, nil
}
