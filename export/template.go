package export

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
)

// Report categories of spec 1.
const (
	CategoryModelPerformance = "model_performance"
	CategoryDriftAnalysis    = "drift_analysis"
	CategoryBiasAudit        = "bias_audit"
	CategoryCompliance       = "compliance"
	CategoryExplainability   = "explainability"
	CategoryLLMMonitoring    = "llm_monitoring"
	CategoryRiskRegister     = "risk_register"
	CategoryTrustScore       = "trust_score"
	CategoryCustom           = "custom"
)

// Categories lists every report category, in spec 1's order.
var Categories = []string{CategoryModelPerformance, CategoryDriftAnalysis, CategoryBiasAudit, CategoryCompliance,
	CategoryExplainability, CategoryLLMMonitoring, CategoryRiskRegister, CategoryTrustScore, CategoryCustom}

// Template says what a report holds: its category and the sections (ids
// of report.Sections, charts included) in report order. A built-in
// template belongs to no organization and cannot be changed.
type Template struct {
	ID             string    `json:"id"`
	OrgID          string    `json:"-"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	ReportCategory string    `json:"report_category"`
	Sections       []string  `json:"sections"`
	BuiltIn        bool      `json:"built_in"`
	CreatedAt      time.Time `json:"-"`
	UpdatedAt      time.Time `json:"-"`
}

// Store keeps an organization's own templates. A record of another
// organization is store.ErrNotFound, as a missing one.
type Store interface {
	CreateExportTemplate(ctx context.Context, t Template) error
	ExportTemplate(ctx context.Context, orgID, id string) (Template, error)
	// ExportTemplates lists the organization's templates oldest first, of
	// one category when category is not empty, with their total.
	ExportTemplates(ctx context.Context, orgID, category string, offset, limit int) ([]Template, int64, error)
	UpdateExportTemplate(ctx context.Context, t Template) error
	DeleteExportTemplate(ctx context.Context, orgID, id string) error
}

// Charts are the template's sections that are charts.
func (t Template) Charts() []string {
	var out []string
	for _, s := range t.Sections {
		if strings.HasSuffix(s, "_chart") {
			out = append(out, s)
		}
	}
	return out
}

// builtinID is the fixed id of the built-in template of a category: a
// UUID of its own, the same on every installation.
func builtinID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1) }

// builtinSections are the sections of each category's built-in template,
// each showing the category's own data (bias audit: the audits' fairness
// results; LLM monitoring: completions, tokens, cost and latency); a
// report marks a section empty when nothing underlies it.
var builtinSections = map[string][]string{
	CategoryModelPerformance: {report.SectionSummary, report.SectionRecommendation, report.SectionVolume, report.SectionAccuracy,
		report.SectionPrecision, report.SectionDistribution, report.SectionDailyMetrics, report.SectionAlertHistory},
	CategoryDriftAnalysis: {report.SectionSummary, report.SectionRecommendation, report.SectionAccuracy,
		report.SectionDistribution, report.SectionTopFeatures, report.SectionDriftReports},
	CategoryBiasAudit:      {report.SectionSummary, report.SectionRecommendation, report.SectionFairness, report.SectionRiskRegister, report.SectionTrustScore},
	CategoryCompliance:     {report.SectionSummary, report.SectionRecommendation, report.SectionAlertHistory, report.SectionDriftReports, report.SectionRiskRegister, report.SectionTrustScore},
	CategoryExplainability: {report.SectionSummary, report.SectionTopFeatures, report.SectionTrustScore},
	CategoryLLMMonitoring:  {report.SectionSummary, report.SectionLLMUsage, report.SectionAlertHistory},
	CategoryRiskRegister:   {report.SectionSummary, report.SectionRecommendation, report.SectionRiskRegister},
	CategoryTrustScore:     {report.SectionSummary, report.SectionDriftReports, report.SectionTrustScore},
	CategoryCustom:         report.Sections,
}

// Builtins are the built-in templates, one per category in Categories'
// order.
func Builtins() []Template {
	out := make([]Template, len(Categories))
	for i, c := range Categories {
		name := strings.ToUpper(c[:1]) + strings.ReplaceAll(c[1:], "_", " ")
		out[i] = Template{ID: builtinID(i), Name: name, Description: "Vigil's built-in " + strings.ReplaceAll(c, "_", " ") + " report.",
			ReportCategory: c, Sections: slices.Clone(builtinSections[c]), BuiltIn: true}
	}
	return out
}

// Builtin returns the built-in template of that id.
func Builtin(id string) (Template, bool) {
	for _, t := range Builtins() {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}

// MaxName bounds a template's name and description.
const (
	MaxName        = 200
	MaxDescription = 2000
)

// Validate checks a template an organization writes: a name, a category
// of Categories, at least one section, each of report.Sections once. It
// puts the sections in report order.
func (t *Template) Validate() *web.Error {
	switch {
	case strings.TrimSpace(t.Name) == "" || len(t.Name) > MaxName:
		return web.Invalid("name", fmt.Sprintf("must be 1 to %d characters", MaxName))
	case len(t.Description) > MaxDescription:
		return web.Invalid("description", fmt.Sprintf("must be at most %d characters", MaxDescription))
	case !slices.Contains(Categories, t.ReportCategory):
		return web.Invalid("report_category", "must be one of "+strings.Join(Categories, ", "))
	case len(t.Sections) == 0:
		return web.Invalid("sections", "must name at least one section")
	}
	seen := map[string]bool{}
	for _, s := range t.Sections {
		if !slices.Contains(report.Sections, s) {
			return web.Invalid("sections", fmt.Sprintf("%q is not a section: one of %s", s, strings.Join(report.Sections, ", ")))
		}
		if seen[s] {
			return web.Invalid("sections", fmt.Sprintf("%q is named twice", s))
		}
		seen[s] = true
	}
	ordered := make([]string, 0, len(t.Sections))
	for _, s := range report.Sections {
		if seen[s] {
			ordered = append(ordered, s)
		}
	}
	t.Sections = ordered
	return nil
}

// Spec is what the template asks of a report.
func (t Template) Spec() report.Spec {
	return report.Spec{Title: t.Name, Category: t.ReportCategory, Sections: t.Sections}
}
