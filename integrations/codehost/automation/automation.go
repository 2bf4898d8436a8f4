package automation

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

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

// result is a validation or a comparison as the checks and comments
// report it.
type result struct {
	HeadSHA           string           `json:"head_sha"`
	ModelName         string           `json:"model_name"`
	ValidationPassed  *bool            `json:"validation_passed"`
	ValidationDetails map[string]any   `json:"validation_details"`
	BaselineVersion   string           `json:"baseline_version"`
	CandidateVersion  string           `json:"candidate_version"`
	Metrics           map[string]mPair `json:"metrics"`
	ComparisonPassed  *bool            `json:"comparison_passed"`
	DashboardURL      string           `json:"dashboard_url"`
}

type mPair struct {
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
}

// check validates a result; comparison says which kind, sha whether a
// commit is named.
func (r result) check(comparison, sha bool) error {
	var v web.Problems
	if sha && !shaRE.MatchString(r.HeadSHA) {
		v.Add("head_sha", "must be a commit's 40 lower-case hexadecimal digits")
	}
	v.Required("model_name", r.ModelName)
	v.MaxLen("model_name", r.ModelName, 255)
	v.Text("model_name", r.ModelName)
	if r.DashboardURL != "" && (!dashboardRE.MatchString(r.DashboardURL) || len(r.DashboardURL) > 2000) {
		v.Add("dashboard_url", "must be an http(s) URL of at most 2000 characters matching "+DashboardPattern)
	}
	if comparison {
		if r.ComparisonPassed == nil {
			v.Add("comparison_passed", "is required")
		}
		v.MaxLen("baseline_version", r.BaselineVersion, 100)
		v.MaxLen("candidate_version", r.CandidateVersion, 100)
		if len(r.Metrics) > 100 {
			v.Add("metrics", "at most 100 metrics")
		}
	} else if r.ValidationPassed == nil {
		v.Add("validation_passed", "is required")
	}
	// One decoder reads the four bodies: a member of another refused as
	// the document's additionalProperties false does.
	unknown := map[string]bool{"head_sha": !sha && r.HeadSHA != "", "validation_passed": comparison && r.ValidationPassed != nil,
		"comparison_passed": !comparison && r.ComparisonPassed != nil, "baseline_version": !comparison && r.BaselineVersion != "",
		"candidate_version": !comparison && r.CandidateVersion != "", "metrics": !comparison && r.Metrics != nil}
	for field, bad := range unknown {
		if bad {
			v.Add(field, "is not a member of this body")
		}
	}
	if len(r.ValidationDetails) > 100 {
		v.Add("validation_details", "at most 100 members")
	}
	return v.Err()
}

// passed, title and markdown render a result.
func (r result) passed(comparison bool) bool {
	if comparison {
		return *r.ComparisonPassed
	}
	return *r.ValidationPassed
}

func (r result) title(comparison bool) string {
	verdict := map[bool]string{true: "passed", false: "failed"}[r.passed(comparison)]
	if comparison {
		return "Comparison of " + r.ModelName + " " + verdict
	}
	return "Validation of " + r.ModelName + " " + verdict
}

// cell escapes text for a markdown table cell.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func (r result) markdown(comparison bool) string {
	var b strings.Builder
	mark := map[bool]string{true: "✅", false: "❌"}[r.passed(comparison)]
	fmt.Fprintf(&b, "### %s %s\n\n", mark, cell(r.title(comparison)))
	if comparison {
		fmt.Fprintf(&b, "Baseline `%s`, candidate `%s`.\n\n| Metric | Baseline | Candidate | Change |\n|---|---|---|---|\n",
			cell(r.BaselineVersion), cell(r.CandidateVersion))
		names := make([]string, 0, len(r.Metrics))
		for k := range r.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			m := r.Metrics[k]
			fmt.Fprintf(&b, "| %s | %.4g | %.4g | %+.4g |\n", cell(k), m.Baseline, m.Candidate, m.Candidate-m.Baseline)
		}
	}
	if len(r.ValidationDetails) > 0 {
		keys := make([]string, 0, len(r.ValidationDetails))
		for k := range r.ValidationDetails {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n| Detail | Value |\n|---|---|\n")
		for _, k := range keys {
			v, _ := json.Marshal(r.ValidationDetails[k])
			fmt.Fprintf(&b, "| %s | %s |\n", cell(k), cell(string(v)))
		}
	}
	if r.DashboardURL != "" {
		fmt.Fprintf(&b, "\n[Open in Vigil](%s)\n", strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(r.DashboardURL))
	}
	return b.String()
}

// decodeResult reads and checks a result body (with a commit when sha),
// then finds the repository it is for.
func (a *API) decodeResult(c *fiber.Ctx, comparison, sha bool) (result, target, error) {
	var r result
	if err := web.Decode(c, &r); err != nil {
		return r, target{}, err
	}
	if err := r.check(comparison, sha); err != nil {
		return r, target{}, err
	}
	t, err := a.target(c)
	return r, t, err
}

func (a *API) postCheck(c *fiber.Ctx, comparison bool) error {
	r, t, err := a.decodeResult(c, comparison, true)
	if err != nil {
		return err
	}
	name := map[bool]string{false: CheckValidation, true: CheckComparison}[comparison]
	conclusion := map[bool]string{true: "success", false: "failure"}[r.passed(comparison)]
	id, err := a.Host.CreateCheckRun(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, hostapi.CheckRun{Name: name, HeadSHA: r.HeadSHA,
		DetailsURL: r.DashboardURL, Conclusion: conclusion, Title: r.title(comparison), Summary: r.markdown(comparison)})
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.Status(fiber.StatusCreated).JSON(map[string]string{"check_run_id": strconv.FormatInt(id, 10), "name": name,
		"conclusion": conclusion})
}

func (a *API) validationCheck(c *fiber.Ctx) error { return a.postCheck(c, false) }
func (a *API) comparisonCheck(c *fiber.Ctx) error { return a.postCheck(c, true) }

type commentAnswer struct {
	CommentID string `json:"comment_id"`
	// Updated: an existing comment was edited in place.
	Updated bool `json:"updated"`
}

func (a *API) postComment(c *fiber.Ctx, comparison bool) error {
	r, t, err := a.decodeResult(c, comparison, false)
	if err != nil {
		return err
	}
	pr, err := prParam(c)
	if err != nil {
		return err
	}
	x, err := a.Host.CreateComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr, r.markdown(comparison))
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.Status(fiber.StatusCreated).JSON(commentAnswer{CommentID: strconv.FormatInt(x.ID, 10)})
}

func (a *API) validationComment(c *fiber.Ctx) error { return a.postComment(c, false) }
func (a *API) comparisonComment(c *fiber.Ctx) error { return a.postComment(c, true) }

// runningComment keeps one comment per identifier on the pull request:
// the comment whose body holds the identifier's hidden marker is edited
// in place; without one, a comment is posted with the marker.
func (a *API) runningComment(c *fiber.Ctx) error {
	var req struct {
		Body       string `json:"comment_body"`
		Identifier string `json:"comment_identifier"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("comment_body", req.Body)
	v.MaxLen("comment_body", req.Body, maxComment)
	v.Text("comment_body", req.Body)
	if !identifierRE.MatchString(req.Identifier) {
		v.Add("comment_identifier", "must match "+IdentifierPattern)
	}
	if err := v.Err(); err != nil {
		return err
	}
	t, err := a.target(c)
	if err != nil {
		return err
	}
	pr, err := prParam(c)
	if err != nil {
		return err
	}
	body := withMarker(req.Body, req.Identifier)
	cs, err := a.Host.Comments(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	for _, x := range cs {
		if strings.Contains(x.Body, Marker(req.Identifier)) {
			y, err := a.Host.EditComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, x.ID, body)
			if err != nil {
				return hostapi.RepoAnswer(err, "")
			}
			return c.JSON(commentAnswer{CommentID: strconv.FormatInt(y.ID, 10), Updated: true})
		}
	}
	y, err := a.Host.CreateComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr, body)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.Status(fiber.StatusCreated).JSON(commentAnswer{CommentID: strconv.FormatInt(y.ID, 10)})
}

// Marker is the hidden marker that identifies a running comment.
func Marker(identifier string) string {
	return "<!-- vigil:comment:" + identifier + " -->"
}

// withMarker returns body carrying the marker of identifier once, at its
// end.
func withMarker(body, identifier string) string {
	return strings.TrimRight(body, "\n") + "\n\n" + Marker(identifier)
}
