package automation

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/web"
)

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
