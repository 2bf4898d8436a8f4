package drift

import (
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vigilhq/vigil/platform/web"
)

// Limits of a configuration.
const (
	maxFeatureConfigs = 1000
	maxChannels       = 20
	maxNameLen        = 255
)

// Windows and intervals a configuration may name.
var (
	windows   = []string{"1h", "24h", "7d", "30d"}
	intervals = []string{"1h", "6h", "12h", "24h", "7d"}
	channels  = []string{"email", "slack", "webhook"}
)

// validate records every problem of c, each under its JSON path, e.g.
// threshold_config.psi or feature_configs.age.method.
func (c Settings) validate(v *web.Problems) {
	if len(c.Features) > maxFeatureConfigs {
		v.Add("feature_configs", fmt.Sprintf("got %d features, want at most %d", len(c.Features), maxFeatureConfigs))
	}
	for name, f := range c.Features {
		f.validate(v, "feature_configs."+name, name)
	}
	c.ConceptDrift.validate(v)
	c.Alerts.validate(v)
	c.Schedule.validate(v)
	c.Thresholds.validate(v)
}

// oneOf records a problem unless s is one of allowed ("" included).
func oneOf(v *web.Problems, field, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		v.Add(field, "must be one of "+strings.Join(allowed, ", "))
	}
}

func (f FeatureConfig) validate(v *web.Problems, path, name string) {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > maxNameLen {
		v.Add(path, fmt.Sprintf("feature names must be 1-%d characters, not blank", maxNameLen))
	}
	if !f.Method.Valid() {
		v.Add(path+".method", "must be one of "+strings.Join(methodNames(), ", "))
	}
	if f.Type != "" && f.Type != Numeric && f.Type != Categorical {
		v.Add(path+".feature_type", "must be numeric or categorical")
	}
	if f.Method.Numeric() && f.Type == Categorical {
		v.Add(path+".method", string(f.Method)+" needs a numeric feature, but feature_type is categorical")
	}
	if f.Threshold != nil {
		checkThreshold(v, path+".threshold", f.Method, *f.Threshold)
	}
}

// checkThreshold records a problem when t is out of m's range.
func checkThreshold(v *web.Problems, field string, m Method, t float64) {
	if ok, want := m.thresholdOK(t); !ok {
		v.Add(field, fmt.Sprintf("got %v, want a number %s", t, want))
	}
}

func (c ConceptDriftConfig) validate(v *web.Problems) {
	if strings.TrimSpace(c.Metric) == "" || utf8.RuneCountInString(c.Metric) > 100 {
		v.Add("concept_drift_config.metric", "must be 1-100 characters, not blank")
	}
	oneOf(v, "concept_drift_config.window", c.Window, windows)
	if c.MinSamples < 1 || c.MinSamples > 1_000_000 {
		v.Add("concept_drift_config.min_samples", fmt.Sprintf("got %d, want 1 to 1000000", c.MinSamples))
	}
}

func (a AlertConfig) validate(v *web.Problems) {
	oneOf(v, "alert_config.min_severity", string(a.MinSeverity), Severities)
	if len(a.Channels) > maxChannels {
		v.Add("alert_config.channels", fmt.Sprintf("got %d channels, want at most %d", len(a.Channels), maxChannels))
	}
	for i, ch := range a.Channels {
		ch.validate(v, fmt.Sprintf("alert_config.channels[%d]", i))
	}
}

func (ch Channel) validate(v *web.Problems, path string) {
	if !slices.Contains(channels, ch.Type) {
		v.Add(path+".type", "must be one of "+strings.Join(channels, ", "))
	}
	t := ch.Target
	ok := strings.TrimSpace(t) != "" && utf8.RuneCountInString(t) <= 2048
	switch ch.Type {
	case "email":
		a, err := mail.ParseAddress(t)
		ok = ok && err == nil && a.Address == t
	case "webhook":
		u, err := url.Parse(t)
		ok = ok && err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
	}
	if !ok {
		v.Add(path+".target", "must be 1-2048 characters: an e-mail address for email, an http(s) URL for webhook")
	}
}

func (s ScheduleConfig) validate(v *web.Problems) {
	oneOf(v, "schedule_config.interval", s.Interval, intervals)
	oneOf(v, "schedule_config.window", s.Window, windows)
	r := s.Reference
	switch r.Type {
	case ReferenceUploaded:
		if r.Start != nil || r.End != nil {
			v.Add("schedule_config.reference", "start and end bound a window reference; send them null with uploaded")
		}
	case ReferenceWindow:
		switch {
		case r.Start == nil && r.End == nil: // the model's first window
		case r.Start == nil:
			v.Add("schedule_config.reference.start", "is required with end; send both null for the model's first window")
		case r.End == nil:
			v.Add("schedule_config.reference.end", "is required with start; send both null for the model's first window")
		case !r.Start.Before(*r.End):
			v.Add("schedule_config.reference.end", "must be after start")
		}
	default:
		v.Add("schedule_config.reference.type", "must be window")
	}
}

func (t Thresholds) validate(v *web.Problems) {
	for _, f := range []struct {
		name  string
		m     Method
		value float64
	}{{"ks_test", KS, t.KS}, {"chi_squared", ChiSquared, t.ChiSquared}, {"psi", PSI, t.PSI}, {"js_divergence", JS, t.JS}} {
		checkThreshold(v, "threshold_config."+f.name, f.m, f.value)
	}
	if t.ConceptDrift <= 0 || t.ConceptDrift > 1 {
		v.Add("threshold_config.concept_drift", fmt.Sprintf("got %v, want a number greater than 0 and at most 1", t.ConceptDrift))
	}
	s := t.Severity
	switch {
	case s.Medium <= 0 || s.Medium > 10:
		v.Add("threshold_config.severity.medium", fmt.Sprintf("got %v, want a number greater than 0 and at most 10", s.Medium))
	case s.High <= s.Medium || s.High > 10:
		v.Add("threshold_config.severity.high", fmt.Sprintf("got %v, want a number greater than medium (%v) and at most 10", s.High, s.Medium))
	}
}
