package report

import (
	"time"

	"github.com/vigilhq/vigil/report/chart"
)

// Section ids, the contents a template can ask for, in the order a
// report lays them out.
const (
	SectionSummary        = "executive_summary"
	SectionVolume         = "volume_chart"
	SectionAccuracy       = "accuracy_chart"
	SectionPrecision      = "precision_recall_chart"
	SectionDistribution   = "prediction_distribution_chart"
	SectionDailyMetrics   = "daily_metrics"
	SectionAlertHistory   = "alert_history"
	SectionTopFeatures    = "top_features"
	SectionDriftReports   = "drift_reports"
	SectionRiskRegister   = "risk_register"
	SectionTrustScore     = "trust_score"
	SectionRecommendation = "recommendations"
	SectionFairness       = "fairness_results"
	SectionLLMUsage       = "llm_usage"
)

// Sections lists every section id in layout order.
var Sections = []string{SectionSummary, SectionRecommendation, SectionVolume, SectionAccuracy, SectionPrecision,
	SectionDistribution, SectionDailyMetrics, SectionLLMUsage, SectionAlertHistory, SectionTopFeatures, SectionDriftReports,
	SectionFairness, SectionRiskRegister, SectionTrustScore}

// Report is a generated report: a snapshot of some models over a period,
// as the sections of its template.
type Report struct {
	Title       string    `json:"title"`
	Category    string    `json:"report_category"`
	GeneratedAt time.Time `json:"generated_at"`
	// From and To are the period's first and last day (YYYY-MM-DD), both
	// included.
	From     string    `json:"date_from"`
	To       string    `json:"date_to"`
	Models   []Model   `json:"models"`
	Sections []Section `json:"sections"`
	// Brand is the organization's branding, applied by the renderers (the
	// JSON rendering states it as Branding).
	Brand Brand `json:"-"`
}

// Model is a model a report covers.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Logo media types a Brand may carry.
const (
	LogoPNG = "image/png"
	LogoSVG = "image/svg+xml"
)

// Brand is how a report is branded: Primary is a "#rrggbb" colour, ""
// for the default; Logo the organization's logo (LogoType LogoPNG or
// LogoSVG, checked and sanitised by whoever stored it), none when empty.
type Brand struct {
	Primary  string
	Logo     []byte
	LogoType string
}

// Section is one part of a report: figures, a list of lines, a chart or a
// table (one of them set), or Empty with the reason when the period holds
// no data for it.
type Section struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Empty is true when nothing underlies the section; Note says why, or
	// qualifies a section that has data.
	Empty bool   `json:"empty"`
	Note  string `json:"note,omitempty"`
	// Figures are labelled values (the executive summary's).
	Figures []Figure `json:"figures,omitempty"`
	// Lines are sentences (recommendations).
	Lines []string     `json:"lines,omitempty"`
	Chart *chart.Chart `json:"chart,omitempty"`
	Table *Table       `json:"table,omitempty"`
}

// Figure is one labelled value, written as the report shows it.
type Figure struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Table is a table of text cells, one row per record, Columns wide.
type Table struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}
