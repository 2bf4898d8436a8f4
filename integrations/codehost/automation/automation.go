package automation

import (
	"errors"
	"regexp"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/web"
)

// The check names Vigil posts and requires.
const (
	CheckValidation = "vigil/validation"
	CheckComparison = "vigil/comparison"
)

// Patterns of the automation routes, stated the same in the document.
const (
	ContextPattern    = `^[A-Za-z0-9._/:-]{1,100}$`
	IdentifierPattern = `^[A-Za-z0-9._:-]{1,100}$`
	SHAPattern        = `^[0-9a-f]{40}$`
	// DashboardPattern is an http(s) URL without credentials or escapes.
	DashboardPattern = `^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/?#&=+-]*)?$`
)

var (
	contextRE    = regexp.MustCompile(ContextPattern)
	identifierRE = regexp.MustCompile(IdentifierPattern)
	shaRE        = regexp.MustCompile(SHAPattern)
	dashboardRE  = regexp.MustCompile(DashboardPattern)
)

// maxComment is what the code host accepts in a comment body, the marker
// left room.
const maxComment = 65000

const automationBase = "/codehost/automation/repositories/:repository_id"

// API serves the pull-request automation of a tracked repository:
// branch protection, check runs and comments.
type API struct {
	// Host is the code host's REST API.
	Host hostapi.Host
	// Tokens finds the tracked repository of the path and opens its
	// connection's token; shared with the other code-host APIs.
	Tokens *connection.Tokens
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	r := func(method, path string, h fiber.Handler) web.Route {
		return web.Route{Method: method, Path: automationBase + path, Permission: codehost.PermissionWrite, Handler: h}
	}
	read := r(fiber.MethodGet, "/branch-protection/:branch", a.protection)
	read.Permission = codehost.PermissionRead
	return []web.Route{
		r(fiber.MethodPost, "/branch-protection/enable", a.protect),
		read,
		r(fiber.MethodPost, "/branch-protection/:branch/required-checks", a.addCheck),
		r(fiber.MethodDelete, "/branch-protection/:branch/required-checks", a.removeCheck),
		r(fiber.MethodPost, "/checks/validation", a.validationCheck),
		r(fiber.MethodPost, "/checks/comparison", a.comparisonCheck),
		r(fiber.MethodPost, "/pr-comments/:pr_number/validation", a.validationComment),
		r(fiber.MethodPost, "/pr-comments/:pr_number/comparison", a.comparisonComment),
		r(fiber.MethodPut, "/pr-comments/:pr_number", a.runningComment),
	}
}

// target is the tracked repository of the path with its token.
type target struct {
	repo  codehost.Repository
	token string
}

func (a *API) target(c *fiber.Ctx) (target, error) {
	r, tok, err := a.Tokens.Repository(c)
	return target{r, tok}, err
}

// branchParam reads the branch path parameter (percent-encoded when it
// holds a /).
func branchParam(c *fiber.Ctx) (string, error) {
	b, err := web.PathParam(c, "branch")
	if err != nil {
		return "", err
	}
	if !codehost.ValidBranch(b) {
		return "", web.Invalid("branch", "must match "+codehost.BranchPattern)
	}
	return b, nil
}

func prParam(c *fiber.Ctx) (int, error) {
	n, err := strconv.Atoi(c.Params("pr_number"))
	if err != nil || n < 1 || n > 1<<31-1 {
		return 0, web.Invalid("pr_number", "must be a pull request number between 1 and 2147483647")
	}
	return n, nil
}

type protectRequest struct {
	Branches          []string `json:"branches"`
	RequireValidation *bool    `json:"require_validation"`
	RequireComparison *bool    `json:"require_comparison"`
	Strict            *bool    `json:"strict"`
}

// protect requires Vigil's checks on each branch: validation unless
// require_validation is false, comparison when require_comparison is
// true.
func (a *API) protect(c *fiber.Ctx) error {
	var req protectRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	if len(req.Branches) == 0 || len(req.Branches) > 20 {
		v.Add("branches", "must name 1 to 20 branches")
	}
	codehost.CheckBranches(&v, "branches", req.Branches)
	if err := v.Err(); err != nil {
		return err
	}
	t, err := a.target(c)
	if err != nil {
		return err
	}
	contexts := []string{}
	if req.RequireValidation == nil || *req.RequireValidation {
		contexts = append(contexts, CheckValidation)
	}
	if req.RequireComparison != nil && *req.RequireComparison {
		contexts = append(contexts, CheckComparison)
	}
	strict := req.Strict != nil && *req.Strict
	out := []hostapi.Protection{}
	for _, b := range req.Branches {
		if err := a.Host.Protect(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, b, strict, contexts); err != nil {
			return hostapi.RepoAnswer(err, "")
		}
		out = append(out, hostapi.Protection{Branch: b, Strict: strict, Contexts: contexts})
	}
	return c.JSON(struct {
		Protections []hostapi.Protection `json:"protections"`
	}{out})
}

func (a *API) protection(c *fiber.Ctx) error {
	b, err := branchParam(c)
	if err != nil {
		return err
	}
	t, err := a.target(c)
	if err != nil {
		return err
	}
	p, err := a.Host.RequiredChecks(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, b)
	if errors.Is(err, hostapi.ErrNoRepository) {
		return web.NotFound("branch protection")
	}
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.JSON(p)
}

// changeChecks reads branch's required checks, applies change and writes
// them back.
func (a *API) changeChecks(c *fiber.Ctx, context string, change func([]string) []string) error {
	b, err := branchParam(c)
	if err != nil {
		return err
	}
	t, err := a.target(c)
	if err != nil {
		return err
	}
	if !contextRE.MatchString(context) {
		return web.Invalid("check_context", "must match "+ContextPattern)
	}
	p, err := a.Host.RequiredChecks(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, b)
	if errors.Is(err, hostapi.ErrNoRepository) {
		return web.NotFound("branch protection")
	}
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	p.Contexts = change(p.Contexts)
	if err := a.Host.SetRequiredChecks(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, p); err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.JSON(p)
}

func (a *API) addCheck(c *fiber.Ctx) error {
	var req struct {
		Context string `json:"check_context"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	return a.changeChecks(c, req.Context, func(cs []string) []string {
		if !slices.Contains(cs, req.Context) {
			cs = append(cs, req.Context)
		}
		return cs
	})
}

func (a *API) removeCheck(c *fiber.Ctx) error {
	ctx := c.Query("check_context")
	return a.changeChecks(c, ctx, func(cs []string) []string {
		return slices.DeleteFunc(cs, func(s string) bool { return s == ctx })
	})
}
