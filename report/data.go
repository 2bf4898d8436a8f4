package report

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/governance/trust"
)

// MaxDays is the longest period a report covers and MaxModels the most
// models; MaxRecords bounds each list a report reads per model (drift
// reports, alert instances, risk entries), so that rendering's memory
// does not grow with an organization's history.
const (
	MaxDays    = 366
	MaxModels  = 50
	MaxRecords = 1000
)

// Quality metrics the charts and the daily table read, by the
// metric_type they are logged with.
const (
	MetricAccuracy  = "accuracy"
	MetricPrecision = "precision"
	MetricRecall    = "recall"
)

// qualityMetrics are the metric types Gather reads.
var qualityMetrics = []string{MetricAccuracy, MetricPrecision, MetricRecall}

// Sources are the stores Gather reads; every one is scoped by the
// organization's id. A nil source leaves its sections empty, saying the
// data is unavailable.
type Sources struct {
	Analytics interface {
		PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error)
		MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error)
	}
	Drift interface {
		DriftReports(ctx context.Context, f drift.ReportFilter) ([]drift.Report, int64, error)
	}
	Alerts interface {
		AlertInstances(ctx context.Context, orgID string, f alerts.InstanceFilter) ([]alerts.Instance, int64, error)
	}
	Risks interface {
		RiskEntries(ctx context.Context, orgID string, f risk.Filter) ([]risk.Entry, int64, error)
		RiskHistory(ctx context.Context, orgID, id string) ([]risk.Event, error)
	}
	// Trust reads the newest snapshot taken before a time.
	Trust interface {
		TrustAsOf(ctx context.Context, orgID, modelID string, at time.Time) (trust.Snapshot, error)
	}
	// Audits reads a model's bias audits, newest first.
	Audits interface {
		BiasAudits(ctx context.Context, orgID string, f bias.Filter) ([]bias.Audit, int64, error)
	}
	// Completions sums a model's logged LLM completions by LLM model.
	Completions interface {
		CompletionGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.CompletionGroup, error)
	}
	// Explanations reads the feature weights of a model's explanations
	// completed in [from, to), newest first, at most limit of them.
	Explanations interface {
		ExplanationWeights(ctx context.Context, orgID, modelID string, from, to time.Time, limit int) ([]map[string]float64, error)
	}
}

// Request is what a report covers: the organization's models (resolved
// by the caller inside the organization) and the days From..To, both
// included, in UTC.
type Request struct {
	OrgID    string
	Models   []Model
	From, To time.Time
}

// Days are the days of the request's period, each its midnight UTC.
func (r Request) Days() []time.Time {
	var out []time.Time
	for d := day(r.From); !d.After(day(r.To)); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// day is t's midnight UTC.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Data is what a report is built from, per model (keyed by model id) and
// day (indexed as Request.Days).
type Data struct {
	Request Request
	Days    []time.Time
	// Stats are each model's prediction rollups summed per day.
	Stats map[string][]analytics.PredictionStats
	// Metrics are each model's mean value of a quality metric per day, nil
	// on a day without values.
	Metrics map[string]map[string][]*float64
	// Drift and Alerts are the records of the period, Risks the entries
	// naming a model created before the period's end, each as it stood
	// then (risk.AsOf); nil when the source is missing. Truncated names
	// those that hit MaxRecords.
	Drift     []drift.Report
	Alerts    []alerts.Instance
	Risks     []risk.Entry
	Truncated []string
	// Trust is each model's newest trust snapshot taken before the
	// period's end (absent: none taken by then).
	Trust map[string]trust.Snapshot
	// Audits are the bias audits of the models completed in the period;
	// LLM each model's completions of the period by LLM model.
	Audits []bias.Audit
	LLM    map[string][]analytics.CompletionGroup
	// Weights are the feature weights of each model's explanations
	// completed in the period (absent or empty: none).
	Weights map[string][]map[string]float64
	// Missing names the sources that were not given.
	Missing map[string]bool
}

// Gather reads what a report on q needs from src: the prediction and
// metric rollups day by day (a day costs the store about 24 hour rows),
// and the period's drift reports and alert instances, the models' risk
// entries and trust snapshots as they stood at the period's end: a report
// is a snapshot of its period.
func Gather(ctx context.Context, src Sources, q Request) (Data, error) {
	d := Data{Request: q, Days: q.Days(), Stats: map[string][]analytics.PredictionStats{},
		Metrics: map[string]map[string][]*float64{}, Trust: map[string]trust.Snapshot{}, Weights: map[string][]map[string]float64{}, Missing: map[string]bool{},
		LLM: map[string][]analytics.CompletionGroup{}}
	if len(d.Days) == 0 || len(d.Days) > MaxDays {
		return d, fmt.Errorf("report period of %d days: want 1 to %d", len(d.Days), MaxDays)
	}
	if len(q.Models) > MaxModels {
		return d, fmt.Errorf("report on %d models: want at most %d", len(q.Models), MaxModels)
	}
	from, to := d.Days[0], d.Days[len(d.Days)-1].AddDate(0, 0, 1)
	for _, m := range q.Models {
		if err := d.gatherRollups(ctx, src, m.ID, from, to); err != nil {
			return d, err
		}
		if err := d.gatherRecords(ctx, src, m.ID, from, to); err != nil {
			return d, err
		}
		if err := d.gatherUsage(ctx, src, m.ID, from, to); err != nil {
			return d, err
		}
	}
	return d, nil
}

func (d *Data) gatherRollups(ctx context.Context, src Sources, modelID string, from, to time.Time) error {
	if src.Analytics == nil {
		d.Missing["analytics"] = true
		return nil
	}
	stats := make([]analytics.PredictionStats, len(d.Days))
	for i, day := range d.Days {
		st, err := src.Analytics.PredictionStats(ctx, d.Request.OrgID, modelID, analytics.Range{From: day, To: day.AddDate(0, 0, 1)})
		if err != nil {
			return fmt.Errorf("read prediction rollups: %w", err)
		}
		stats[i] = st
	}
	d.Stats[modelID] = stats
	d.Metrics[modelID] = map[string][]*float64{}
	for _, metric := range qualityMetrics {
		sums, err := src.Analytics.MetricSeries(ctx, analytics.MetricFilter{OrgID: d.Request.OrgID, ModelID: modelID,
			MetricType: metric, Range: analytics.Range{From: from, To: to}}, analytics.Buckets{Range: analytics.Range{From: from, To: to}, Width: 24 * time.Hour})
		if err != nil {
			return fmt.Errorf("read %s rollups: %w", metric, err)
		}
		vals := make([]*float64, len(d.Days))
		for _, s := range sums {
			i := int(s.Start.Sub(from) / (24 * time.Hour))
			if s.Count > 0 && i >= 0 && i < len(vals) {
				mean := s.Sum / float64(s.Count)
				vals[i] = &mean
			}
		}
		d.Metrics[modelID][metric] = vals
	}
	return nil
}

func (d *Data) gatherRecords(ctx context.Context, src Sources, modelID string, from, to time.Time) error {
	org := d.Request.OrgID
	truncated := func(name string, n int, total int64) {
		if int64(n) < total {
			d.Truncated = append(d.Truncated, name)
		}
	}
	if src.Drift == nil {
		d.Missing["drift"] = true
	} else {
		rs, total, err := src.Drift.DriftReports(ctx, drift.ReportFilter{OrgID: org, ModelID: modelID, From: &from, To: &to, Oldest: true, Limit: MaxRecords})
		if err != nil {
			return fmt.Errorf("read drift reports: %w", err)
		}
		d.Drift = append(d.Drift, rs...)
		truncated("drift reports", len(rs), total)
	}
	if src.Alerts == nil {
		d.Missing["alerts"] = true
	} else {
		is, total, err := src.Alerts.AlertInstances(ctx, org, alerts.InstanceFilter{ModelID: modelID, From: from, To: to, Limit: MaxRecords})
		if err != nil {
			return fmt.Errorf("read alert instances: %w", err)
		}
		d.Alerts = append(d.Alerts, is...)
		truncated("alert instances", len(is), total)
	}
	if src.Risks == nil {
		d.Missing["risks"] = true
	} else {
		es, total, err := src.Risks.RiskEntries(ctx, org, risk.Filter{ModelID: modelID, Limit: MaxRecords})
		if err != nil {
			return fmt.Errorf("read risk entries: %w", err)
		}
		if es, err = risksAsOf(ctx, src, org, es, to); err != nil {
			return err
		}
		d.Risks = appendNew(d.Risks, es)
		truncated("risk entries", len(es), total)
	}
	if src.Explanations == nil {
		d.Missing["explanations"] = true
	} else {
		ws, err := src.Explanations.ExplanationWeights(ctx, org, modelID, from, to, MaxRecords)
		if err != nil {
			return fmt.Errorf("read explanations: %w", err)
		}
		d.Weights[modelID] = ws
	}
	if src.Trust == nil {
		d.Missing["trust"] = true
	} else {
		s, err := src.Trust.TrustAsOf(ctx, org, modelID, to)
		if err != nil {
			return fmt.Errorf("read trust score: %w", err)
		}
		if s.Seq > 0 {
			d.Trust[modelID] = s
		}
	}
	return nil
}

// gatherUsage reads the model's bias audits completed in [from, to) and
// its LLM completions of the period.
func (d *Data) gatherUsage(ctx context.Context, src Sources, modelID string, from, to time.Time) error {
	org := d.Request.OrgID
	if src.Audits == nil {
		d.Missing["audits"] = true
	} else {
		as, total, err := src.Audits.BiasAudits(ctx, org, bias.Filter{ModelID: modelID, Status: bias.StatusCompleted, Limit: MaxRecords})
		if err != nil {
			return fmt.Errorf("read bias audits: %w", err)
		}
		for _, a := range as {
			if a.CompletedAt != nil && !a.CompletedAt.Before(from) && a.CompletedAt.Before(to) && a.Result != nil {
				d.Audits = append(d.Audits, a)
			}
		}
		if int64(len(as)) < total {
			d.Truncated = append(d.Truncated, "bias audits")
		}
	}
	if src.Completions == nil {
		d.Missing["completions"] = true
		return nil
	}
	gs, err := src.Completions.CompletionGroups(ctx, org, modelID, analytics.Range{From: from, To: to})
	if err != nil {
		return fmt.Errorf("read completions: %w", err)
	}
	d.LLM[modelID] = gs
	return nil
}

// risksAsOf are the entries of es created before end, each as it stood
// then: an entry changed since is read back through its audit trail.
func risksAsOf(ctx context.Context, src Sources, org string, es []risk.Entry, end time.Time) ([]risk.Entry, error) {
	var out []risk.Entry
	for _, e := range es {
		if !e.CreatedAt.Before(end) {
			continue
		}
		if e.UpdatedAt.Before(end) {
			out = append(out, e)
			continue
		}
		evs, err := src.Risks.RiskHistory(ctx, org, e.ID)
		if err != nil {
			return nil, fmt.Errorf("read a risk entry's history: %w", err)
		}
		out = append(out, risk.AsOf(e, evs, end))
	}
	return out, nil
}

// appendNew appends the entries of es not in have already (an entry can
// name several of the report's models).
func appendNew(have, es []risk.Entry) []risk.Entry {
	seen := map[string]bool{}
	for _, e := range have {
		seen[e.ID] = true
	}
	for _, e := range es {
		if !seen[e.ID] {
			have = append(have, e)
		}
	}
	return have
}
