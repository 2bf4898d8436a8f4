package drift

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/registry"
)

// Config is a model's drift configuration, stored per model in the
// model's organization.
type Config struct {
	ModelID string `json:"model_id"`
	OrgID   string `json:"-"`
	Settings
	// CreatedAt and UpdatedAt are nil while no configuration is on file.
	CreatedAt *time.Time `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at"`
}

// Settings are the five parts of a configuration that the specification
// names. Every part has a working zero value (see Default for what a new
// configuration holds).
type Settings struct {
	// Features overrides detection per feature, keyed by feature name.
	Features map[string]FeatureConfig `json:"feature_configs"`
	// ConceptDrift says how concept drift (a fall of a quality metric) is
	// watched.
	ConceptDrift ConceptDriftConfig `json:"concept_drift_config"`
	// Alerts says when a detected drift raises an alert, and where to.
	Alerts AlertConfig `json:"alert_config"`
	// Schedule says when drift detection runs on its own.
	Schedule ScheduleConfig `json:"schedule_config"`
	// Thresholds are the per-method thresholds and severity cutoffs.
	Thresholds Thresholds `json:"threshold_config"`
}

// FeatureConfig overrides detection for one feature. The zero value
// changes nothing: the feature is tested, its type inferred, its method
// chosen by type and its threshold the method's.
type FeatureConfig struct {
	// Enabled false leaves the feature out of detection; nil means true.
	Enabled *bool `json:"enabled"`
	// Method, when set, is the method for this feature.
	Method Method `json:"method,omitempty"`
	// Threshold, when set, replaces the method's threshold for this feature.
	Threshold *float64 `json:"threshold,omitempty"`
	// Type, when set, overrides the inferred type: numeric values can be
	// compared as categories.
	Type FeatureType `json:"feature_type,omitempty"`
}

// On reports whether the feature is tested.
func (f FeatureConfig) On() bool { return f.Enabled == nil || *f.Enabled }

// ConceptDriftConfig watches a quality metric for a worsening from its
// baseline by at least threshold_config.concept_drift (relative). Each
// scheduled run writes a concept report when the metric can be had:
//
//   - Current value, over the last Window: from labelled predictions
//     (metadata or input_data field label or y_true, against output_data's
//     prediction) when Metric is accuracy, error_rate, precision, recall,
//     f1_score, mae, mse or rmse (see stats/profile.QualityMetrics) and
//     the window holds at least MinSamples of them; otherwise the mean of
//     the values of metric_type Metric logged with POST /metrics, when the
//     window holds at least one.
//   - Baseline: the model's baseline_metrics of the same name; otherwise
//     the same figure over the schedule's reference window.
type ConceptDriftConfig struct {
	Enabled bool `json:"enabled"`
	// Metric is the quality metric watched (default accuracy).
	Metric string `json:"metric"`
	// HigherIsBetter says which way the metric worsens; left out, it is
	// inferred from the name (false for error_rate, mae, mse, rmse, mape,
	// log_loss, loss and brier_score).
	HigherIsBetter *bool `json:"higher_is_better"`
	// Window is the span of recent data the metric is computed over: 1h,
	// 24h, 7d or 30d (default 7d), ending where the schedule's window
	// ends and starting no earlier than the reference ends.
	Window string `json:"window"`
	// MinSamples is the fewest labelled predictions the window (and a
	// reference window standing for the baseline) must hold before the
	// metric is computed from labels (default 100).
	MinSamples int `json:"min_samples"`
}

// AlertConfig decides which detected drifts raise an alert.
type AlertConfig struct {
	Enabled bool `json:"enabled"`
	// MinSeverity is the least severity that alerts: low, medium or high
	// (default high).
	MinSeverity Severity `json:"min_severity"`
	// Channels are where alerts go besides the alert list.
	Channels []Channel `json:"channels"`
}

// Channel is one alert destination, as in alert rules' notification
// channels.
type Channel struct {
	// Type is email, slack or webhook.
	Type string `json:"type"`
	// Target is the address: an e-mail address, a Slack channel, an https URL.
	Target string `json:"target"`
}

// ScheduleConfig says when detection runs by itself.
type ScheduleConfig struct {
	Enabled bool `json:"enabled"`
	// Interval between runs: 1h, 6h, 12h, 24h or 7d (default 1h).
	Interval string `json:"interval"`
	// Window is the span of recent predictions each run compares with the
	// reference: 1h, 24h, 7d or 30d (default 24h).
	Window string `json:"window"`
	// Reference is what the recent window is compared with.
	Reference Reference `json:"reference"`
}

// Reference is the reference data of scheduled runs.
type Reference struct {
	// Type is "window" (predictions logged from Start to End) or
	// "uploaded" (the reference sent to PUT /drift/reference/{model_id};
	// runs are skipped while none is uploaded).
	Type string `json:"type"`
	// Start and End bound a "window" reference; both nil mean the model's
	// first window of logged predictions, from its first profiled hour.
	Start *time.Time `json:"start"`
	End   *time.Time `json:"end"`
}

// Reference types.
const (
	ReferenceUploaded = "uploaded"
	ReferenceWindow   = "window"
	// ReferenceRequest marks a report of POST /drift/detect: compared
	// with the request's own reference_data. Such reports do not count as
	// runs of the stream's schedule.
	ReferenceRequest = "request"
)

// Default returns the default configuration of a model: the medium preset,
// no feature overrides, concept drift on (accuracy over 7d, reported once
// labelled predictions or logged accuracy values exist), alerts on from
// high severity, and the schedule on: every hour, the last
// 24 hours compared with the model's first 24 hours of logged predictions,
// so that drift is reported without anyone configuring anything. Nothing
// is on file yet, so the times are nil.
func Default(orgID, modelID string) Config {
	c := Config{ModelID: modelID, OrgID: orgID}
	c.Thresholds = Presets[1].Thresholds
	c.ConceptDrift.Enabled = true
	c.Alerts.Enabled = true
	c.Schedule.Enabled = true
	c.normalize()
	return c
}

// normalize fills the defaults of fields left empty, so that responses and
// stored configurations always carry every field.
func (c *Settings) normalize() {
	if c.Features == nil {
		c.Features = map[string]FeatureConfig{}
	}
	for name, f := range c.Features {
		on := f.On()
		f.Enabled = &on
		c.Features[name] = f
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.ConceptDrift.Metric, "accuracy")
	def(&c.ConceptDrift.Window, "7d")
	if c.ConceptDrift.HigherIsBetter == nil {
		hib := HigherIsBetter(c.ConceptDrift.Metric)
		c.ConceptDrift.HigherIsBetter = &hib
	}
	if c.ConceptDrift.MinSamples == 0 {
		c.ConceptDrift.MinSamples = 100
	}
	if c.Alerts.MinSeverity == "" {
		c.Alerts.MinSeverity = High
	}
	if c.Alerts.Channels == nil {
		c.Alerts.Channels = []Channel{}
	}
	def(&c.Schedule.Interval, "1h")
	def(&c.Schedule.Window, "24h")
	def(&c.Schedule.Reference.Type, ReferenceWindow)
	c.Thresholds = c.Thresholds.Effective()
}

// Store keeps drift configurations and reads the models they belong to.
// Every method takes the caller's organization; another organization's
// model or configuration reports store.ErrNotFound like a missing one.
type Store interface {
	// Model returns the model; store.ErrNotFound when the organization has
	// no such model.
	Model(ctx context.Context, orgID, id string) (registry.Model, error)
	// DriftConfig returns the model's configuration; store.ErrNotFound
	// when none is on file (or no such model).
	DriftConfig(ctx context.Context, orgID, modelID string) (Config, error)
	// CreateDriftConfig stores c; store.ErrConflict when the model has a
	// configuration already, store.ErrNotFound when the organization has
	// no such model.
	CreateDriftConfig(ctx context.Context, c Config) error
	// CreateDriftConfig and UpdateDriftConfig also write, in the same
	// transaction, the alert rule the configuration's alert_config
	// manages (alerts.DriftRule): created, changed or, when alert_config
	// is disabled, deleted.
	//
	// UpdateDriftConfig applies change, in one transaction, to the model's
	// configuration, or to base when none is on file, stores the result
	// and returns it as stored. An error from change aborts; no such model
	// is store.ErrNotFound; two first writes racing may give one of them
	// store.ErrConflict.
	UpdateDriftConfig(ctx context.Context, base Config, change func(*Config) error) (Config, error)
}
