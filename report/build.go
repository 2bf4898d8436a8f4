package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/report/chart"
)

// Spec is what a template asks of a report: its title, category and
// sections (ids of Sections; empty: all of them), the time it is
// generated and the branding.
type Spec struct {
	Title, Category string
	Sections        []string
	GeneratedAt     time.Time
	Brand           Brand
}

// Thresholds of the recommendation rules (see recommend).
const (
	// AccuracyDrop is the relative fall of a model's accuracy, from its
	// first to its last day with a value, that asks for a retraining.
	AccuracyDrop = 0.05
	// TrustFloor is the trust score under which a model is flagged.
	TrustFloor = 60.0
)

// Build lays out d as the sections spec asks for, in the order of
// Sections.
func Build(d Data, spec Spec) Report {
	r := Report{Title: spec.Title, Category: spec.Category, GeneratedAt: spec.GeneratedAt.UTC(),
		Models: d.Request.Models, Brand: spec.Brand, Sections: []Section{}}
	if len(d.Days) > 0 {
		r.From, r.To = d.Days[0].Format(time.DateOnly), d.Days[len(d.Days)-1].Format(time.DateOnly)
	}
	b := builder{d: d, names: map[string]string{}}
	for _, m := range d.Request.Models {
		b.names[m.ID] = m.Name
	}
	for _, id := range Sections {
		if len(spec.Sections) > 0 && !slices.Contains(spec.Sections, id) {
			continue
		}
		r.Sections = append(r.Sections, b.section(id))
	}
	return r
}

type builder struct {
	d     Data
	names map[string]string
}

func (b builder) section(id string) Section {
	switch id {
	case SectionSummary:
		return b.summary()
	case SectionRecommendation:
		return Section{ID: id, Title: "Recommendations", Lines: b.recommend(),
			Note: "Derived from the data by the rules: high-severity drift, an accuracy fall of 5% or more, open alerts, a trust score under 60, open high or critical risks, no predictions."}
	case SectionVolume:
		return b.volume()
	case SectionAccuracy:
		return b.metricChart(id, "Accuracy trend", "accuracy", MetricAccuracy)
	case SectionPrecision:
		return b.metricChart(id, "Precision and recall", "value", MetricPrecision, MetricRecall)
	case SectionDistribution:
		return b.distribution()
	case SectionDailyMetrics:
		return b.daily()
	case SectionAlertHistory:
		return b.alertHistory()
	case SectionTopFeatures:
		return b.topFeatures()
	case SectionDriftReports:
		return b.driftReports()
	case SectionRiskRegister:
		return b.risks()
	case SectionTrustScore:
		return b.trust()
	case SectionFairness:
		return b.fairness()
	case SectionLLMUsage:
		return b.llmUsage()
	}
	return Section{ID: id, Title: id, Empty: true, Note: "Unknown section."}
}

// missing is the section id marked empty because its source was not
// given, or nil.
func (b builder) missing(source string, s Section) (Section, bool) {
	if b.d.Missing[source] {
		s.Empty, s.Note = true, "The "+source+" store was not available to this report."
		return s, true
	}
	return s, false
}

// labels are the days as the charts label them.
func (b builder) labels() []string {
	out := make([]string, len(b.d.Days))
	for i, d := range b.d.Days {
		out[i] = d.Format("01-02")
	}
	return out
}

// total is the predictions of every model on every day; half the
// predictions of the first and second half of the period.
func (b builder) totals() (total, first, second int64) {
	n := len(b.d.Days)
	for _, m := range b.d.Request.Models {
		for i, st := range b.d.Stats[m.ID] {
			total += st.TotalPredictions
			switch {
			case i < n/2:
				first += st.TotalPredictions
			case i >= n-n/2:
				second += st.TotalPredictions
			}
		}
	}
	return total, first, second
}

func (b builder) summary() Section {
	s := Section{ID: SectionSummary, Title: "Executive summary"}
	total, first, second := b.totals()
	trend := "not enough data"
	if first > 0 {
		trend = fmt.Sprintf("%+.1f%% (second half of the period against the first)", 100*float64(second-first)/float64(first))
	}
	if b.d.Missing["analytics"] {
		trend = "unavailable"
	}
	open, alertsN := 0, len(b.d.Alerts)
	for _, a := range b.d.Alerts {
		if a.Status != alerts.StatusResolved {
			open++
		}
	}
	s.Figures = []Figure{
		{"Models", strconv.Itoa(len(b.d.Request.Models))},
		{"Period", fmt.Sprintf("%d days", len(b.d.Days))},
		{"Predictions", strconv.FormatInt(total, 10)},
		{"Daily average", strconv.FormatFloat(float64(total)/float64(max(len(b.d.Days), 1)), 'f', 1, 64)},
		{"Volume trend", trend},
		{"Drift status", b.driftStatus()},
		{"Alerts triggered", fmt.Sprintf("%d (%d not resolved)", alertsN, open)},
		{"Open risks", strconv.Itoa(len(openRisks(b.d.Risks, nil)))},
	}
	s.Figures = append(s.Figures, b.usageFigures()...)
	for _, m := range b.d.Request.Models {
		v := "no snapshot"
		if t, ok := b.d.Trust[m.ID]; ok && t.Score != nil {
			v = strconv.FormatFloat(*t.Score, 'f', 2, 64)
		}
		s.Figures = append(s.Figures, Figure{"Trust score: " + m.Name, v})
	}
	return s
}

// driftStatus sums up the period's drift reports.
func (b builder) driftStatus() string {
	if b.d.Missing["drift"] {
		return "unavailable"
	}
	if len(b.d.Drift) == 0 {
		return "no drift reports in the period"
	}
	detected, worst := 0, drift.Severity("")
	for _, r := range b.d.Drift {
		if r.DriftDetected {
			detected++
			if worst == "" || r.Severity == drift.High || r.Severity == drift.Medium && worst == drift.Low {
				worst = r.Severity
			}
		}
	}
	if detected == 0 {
		return fmt.Sprintf("no drift detected in %d reports", len(b.d.Drift))
	}
	return fmt.Sprintf("drift detected in %d of %d reports, worst severity %s", detected, len(b.d.Drift), worst)
}

// openRisks are the entries not mitigated or closed, of the severities
// given (nil: all).
func openRisks(es []risk.Entry, severities []string) []risk.Entry {
	var out []risk.Entry
	for _, e := range es {
		if e.Status != risk.StatusClosed && e.Status != risk.StatusMitigated && (severities == nil || slices.Contains(severities, e.Severity)) {
			out = append(out, e)
		}
	}
	return out
}

// recommend applies the rules, in order: no predictions; high drift per
// model; accuracy fallen by AccuracyDrop; alerts not resolved; a trust
// score under TrustFloor; open high or critical risks.
func (b builder) recommend() []string {
	var out []string
	if total, _, _ := b.totals(); total == 0 && !b.d.Missing["analytics"] {
		out = append(out, "No predictions were logged in the period: check that the models' integrations are sending data.")
	}
	for _, m := range b.d.Request.Models {
		for _, r := range b.d.Drift {
			if r.ModelID == m.ID && r.DriftDetected && r.Severity == drift.High {
				out = append(out, fmt.Sprintf("Investigate high-severity %s drift on %s (report of %s).", r.DriftType, m.Name, r.CreatedAt.Format(time.DateOnly)))
				break
			}
		}
		if acc := b.d.Metrics[m.ID][MetricAccuracy]; acc != nil {
			first, last := edge(acc)
			if first != nil && last != nil && *first > 0 && (*first-*last)/(*first) >= AccuracyDrop {
				out = append(out, fmt.Sprintf("Accuracy of %s fell from %.4g to %.4g over the period: consider retraining.", m.Name, *first, *last))
			}
		}
		if t, ok := b.d.Trust[m.ID]; ok && t.Score != nil && *t.Score < TrustFloor {
			out = append(out, fmt.Sprintf("Trust score of %s is %.2f, under %g: review its fairness, drift and explainability inputs.", m.Name, *t.Score, TrustFloor))
		}
	}
	open := 0
	for _, a := range b.d.Alerts {
		if a.Status != alerts.StatusResolved {
			open++
		}
	}
	if open > 0 {
		out = append(out, fmt.Sprintf("Resolve or acknowledge the alerts of the period not yet resolved (%d).", open))
	}
	if n := len(openRisks(b.d.Risks, []string{"high", "critical"})); n > 0 {
		out = append(out, fmt.Sprintf("Plan mitigation for the open high or critical risks (%d).", n))
	}
	if len(out) == 0 {
		out = append(out, "No rule applies: nothing needs action.")
	}
	return out
}

// edge is the first and last value of vs that are set.
func edge(vs []*float64) (first, last *float64) {
	for _, v := range vs {
		if v != nil {
			if first == nil {
				first = v
			}
			last = v
		}
	}
	return first, last
}

func (b builder) volume() Section {
	s := Section{ID: SectionVolume, Title: "Prediction volume over time"}
	if s, ok := b.missing("analytics", s); ok {
		return s
	}
	c := chart.Chart{Kind: chart.Bar, Title: s.Title, YLabel: "predictions per day", Labels: b.labels()}
	total := int64(0)
	for _, m := range b.d.Request.Models {
		vs := make([]*float64, len(b.d.Days))
		for i, st := range b.d.Stats[m.ID] {
			v := float64(st.TotalPredictions)
			vs[i] = &v
			total += st.TotalPredictions
		}
		c.Series = append(c.Series, chart.Series{Name: m.Name, Values: vs})
	}
	if total == 0 {
		s.Empty, s.Note = true, "No predictions were logged in the period."
		return s
	}
	s.Chart = &c
	return s
}

func (b builder) metricChart(id, title, ylabel string, metrics ...string) Section {
	s := Section{ID: id, Title: title}
	if s, ok := b.missing("analytics", s); ok {
		return s
	}
	c := chart.Chart{Kind: chart.Line, Title: title, YLabel: ylabel, Labels: b.labels()}
	for _, m := range b.d.Request.Models {
		for _, metric := range metrics {
			name := m.Name
			if len(metrics) > 1 {
				name += " " + metric
			}
			vs := make([]*float64, len(b.d.Days))
			for i := range vs {
				vs[i] = b.metric(m.ID, metric, i)
			}
			c.Series = append(c.Series, chart.Series{Name: name, Values: vs})
		}
	}
	if c.Empty() {
		s.Empty, s.Note = true, "No "+strings.Join(metrics, " or ")+" values were logged in the period."
		return s
	}
	s.Chart = &c
	return s
}

// MaxLabels is the most output labels the distribution chart shows; the
// rest are summed as "other".
const MaxLabels = 12

func (b builder) distribution() Section {
	s := Section{ID: SectionDistribution, Title: "Prediction distribution"}
	if s, ok := b.missing("analytics", s); ok {
		return s
	}
	per := map[string]analytics.OutputDistribution{}
	all := analytics.OutputDistribution{}
	for _, m := range b.d.Request.Models {
		od := analytics.OutputDistribution{}
		for _, st := range b.d.Stats[m.ID] {
			od.Merge(st.Outputs)
		}
		per[m.ID] = od
		all.Merge(od)
	}
	type kv struct {
		label string
		n     int64
	}
	var keys []kv
	key := func(field, value string) string {
		if len(all) > 1 {
			return field + "=" + value
		}
		return value
	}
	for field, vc := range all {
		for v, n := range vc.Values {
			keys = append(keys, kv{key(field, v), n})
		}
	}
	if len(keys) == 0 {
		s.Empty, s.Note = true, "No class labels were logged in the period."
		return s
	}
	slices.SortFunc(keys, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.label, b.label)) })
	other := len(keys) > MaxLabels
	if other {
		keys = keys[:MaxLabels]
	}
	c := chart.Chart{Kind: chart.Bar, Title: s.Title, YLabel: "predictions"}
	for _, k := range keys {
		c.Labels = append(c.Labels, k.label)
	}
	if other {
		c.Labels = append(c.Labels, "other")
	}
	for _, m := range b.d.Request.Models {
		counts := map[string]int64{}
		rest := int64(0)
		for field, vc := range per[m.ID] {
			for v, n := range vc.Values {
				counts[key(field, v)] += n
				rest += n
			}
			rest += vc.Other
		}
		vs := make([]*float64, len(c.Labels))
		for i, k := range keys {
			v := float64(counts[k.label])
			vs[i] = &v
			rest -= counts[k.label]
		}
		if other {
			v := float64(rest)
			vs[len(vs)-1] = &v
		}
		c.Series = append(c.Series, chart.Series{Name: m.Name, Values: vs})
	}
	s.Chart = &c
	return s
}

// fnum writes an optional number with four significant digits; "" when
// absent.
func fnum(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', 6, 64)
}

func (b builder) daily() Section {
	s := Section{ID: SectionDailyMetrics, Title: "Daily metrics"}
	if s, ok := b.missing("analytics", s); ok {
		return s
	}
	t := &Table{Columns: []string{"date", "model", "predictions", "avg_latency_ms", "p95_latency_ms", "accuracy", "precision", "recall"}}
	any := false
	for i, d := range b.d.Days {
		for _, m := range b.d.Request.Models {
			var st analytics.PredictionStats
			if i < len(b.d.Stats[m.ID]) {
				st = b.d.Stats[m.ID][i]
			}
			acc, prec, rec := b.metric(m.ID, MetricAccuracy, i), b.metric(m.ID, MetricPrecision, i), b.metric(m.ID, MetricRecall, i)
			row := []string{d.Format(time.DateOnly), m.Name, strconv.FormatInt(st.TotalPredictions, 10), fnum(st.AvgLatencyMS),
				fnum(st.P95LatencyMS), fnum(acc), fnum(prec), fnum(rec)}
			any = any || st.TotalPredictions > 0 || acc != nil || prec != nil || rec != nil
			t.Rows = append(t.Rows, row)
		}
	}
	if !any {
		s.Empty, s.Note = true, "No predictions or quality metrics were logged in the period."
		return s
	}
	s.Table = t
	return s
}

// metric is a model's mean of a metric on day i; nil without.
func (b builder) metric(modelID, metric string, i int) *float64 {
	if vs := b.d.Metrics[modelID][metric]; i < len(vs) {
		return vs[i]
	}
	return nil
}

// ts writes an optional time as RFC 3339 UTC; "" when absent.
func ts(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// truncatedNote says a list stopped at MaxRecords.
func (b builder) truncatedNote(name string) string {
	if slices.Contains(b.d.Truncated, name) {
		return fmt.Sprintf("Only the first %d %s of a model are listed.", MaxRecords, name)
	}
	return ""
}

// records lays out a section listing records of a source: empty with
// none as its reason when there are none, otherwise a table of columns
// with a row per record in order.
func records[T any](b builder, s Section, source string, recs []T, none string, order func(x, y T) int, columns []string, row func(T) []string) Section {
	if s, ok := b.missing(source, s); ok {
		return s
	}
	if len(recs) == 0 {
		s.Empty, s.Note = true, none
		return s
	}
	sorted := slices.Clone(recs)
	slices.SortFunc(sorted, order)
	t := &Table{Columns: columns}
	for _, r := range sorted {
		t.Rows = append(t.Rows, row(r))
	}
	s.Table = t
	return s
}

func (b builder) alertHistory() Section {
	return records(b, Section{ID: SectionAlertHistory, Title: "Alert history", Note: b.truncatedNote("alert instances")}, "alerts", b.d.Alerts,
		"No alert was triggered in the period.",
		func(x, y alerts.Instance) int {
			return cmp.Or(x.TriggeredAt.Compare(y.TriggeredAt), cmp.Compare(x.ID, y.ID))
		},
		[]string{"triggered_at", "model", "rule", "alert_type", "severity", "status", "times_held", "resolved_at"},
		func(a alerts.Instance) []string {
			return []string{ts(&a.TriggeredAt), b.names[a.ModelID], a.RuleName, a.AlertType, a.Severity,
				string(a.Status), strconv.FormatInt(a.Count, 10), ts(a.ResolvedAt)}
		})
}

func (b builder) driftReports() Section {
	return records(b, Section{ID: SectionDriftReports, Title: "Drift reports", Note: b.truncatedNote("drift reports")}, "drift", b.d.Drift,
		"No drift report was written in the period.",
		func(x, y drift.Report) int { return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), cmp.Compare(x.ID, y.ID)) },
		[]string{"created_at", "model", "drift_type", "window_start", "window_end", "drift_detected", "severity", "score", "drifted_features"},
		func(r drift.Report) []string {
			score := r.OverallDriftScore
			return []string{ts(&r.CreatedAt), b.names[r.ModelID], r.DriftType, ts(&r.WindowStart), ts(&r.WindowEnd),
				strconv.FormatBool(r.DriftDetected), string(r.Severity), fnum(&score), strings.Join(r.DriftedFeatures(), " ")}
		})
}

func (b builder) risks() Section {
	note := strings.TrimSpace("The entries naming these models at the end of the period, each with its status, likelihood, impact and " +
		"score as they stood then; severities as they stand now. " + b.truncatedNote("risk entries"))
	return records(b, Section{ID: SectionRiskRegister, Title: "Risk register", Note: note}, "risks", b.d.Risks,
		"No risk entry named these models by the end of the period.",
		func(x, y risk.Entry) int {
			return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.Title, y.Title), cmp.Compare(x.ID, y.ID))
		},
		[]string{"title", "category", "likelihood", "impact", "score", "severity", "status", "target_date", "source"},
		func(e risk.Entry) []string {
			return []string{e.Title, e.Category, strconv.Itoa(e.Likelihood), strconv.Itoa(e.Impact), strconv.Itoa(e.Score),
				e.Severity, string(e.Status), e.TargetDate, e.SourceType}
		})
}

func (b builder) trust() Section {
	s := Section{ID: SectionTrustScore, Title: "Trust score", Note: "Each model's trust score as it stood at the end of the period " +
		"(the newest computed before then)."}
	if s, ok := b.missing("trust", s); ok {
		return s
	}
	t := &Table{Columns: []string{"model", "trust_score", "fairness_component", "drift_component", "explainability_component", "as_of"}}
	for _, m := range b.d.Request.Models {
		sn, ok := b.d.Trust[m.ID]
		if !ok {
			continue
		}
		t.Rows = append(t.Rows, []string{m.Name, fnum(sn.Score), fnum(sn.Components.Fairness), fnum(sn.Components.Drift),
			fnum(sn.Components.Explainability), ts(&sn.At)})
	}
	if len(t.Rows) == 0 {
		s.Empty, s.Note = true, "No trust score had been computed for these models by the end of the period."
		return s
	}
	s.Table = t
	return s
}

// TopFeatures is how many features a model's top-features table lists.
const TopFeatures = 10

// topFeatures ranks each model's features by their mean absolute weight
// over the explanations completed in the period (a feature missing from
// an explanation weighs 0 there), the TopFeatures first.
func (b builder) topFeatures() Section {
	s := Section{ID: SectionTopFeatures, Title: "Top features by importance",
		Note: "Mean absolute feature weight over the explanations completed in the period."}
	if s, ok := b.missing("explanations", s); ok {
		return s
	}
	t := &Table{Columns: []string{"model", "rank", "feature", "mean_abs_weight", "explanations"}}
	for _, m := range b.d.Request.Models {
		ws := b.d.Weights[m.ID]
		sums := map[string]float64{}
		for _, w := range ws {
			for f, v := range w {
				sums[f] += math.Abs(v)
			}
		}
		features := make([]string, 0, len(sums))
		for f := range sums {
			features = append(features, f)
		}
		slices.SortFunc(features, func(x, y string) int { return cmp.Or(cmp.Compare(sums[y], sums[x]), cmp.Compare(x, y)) })
		for i, f := range features[:min(len(features), TopFeatures)] {
			mean := sums[f] / float64(len(ws))
			t.Rows = append(t.Rows, []string{m.Name, strconv.Itoa(i + 1), f, fnum(&mean), strconv.Itoa(len(ws))})
		}
	}
	if len(t.Rows) == 0 {
		s.Empty, s.Note = true, "No explanation of these models was completed in the period, so no feature importance is known."
		return s
	}
	s.Table = t
	return s
}
