package drift

import (
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

func TestValidate(t *testing.T) {
	f := func(change func(s *Settings)) web.Problems {
		t.Helper()
		s := Default("o", "m").Settings
		change(&s)
		var v web.Problems
		s.validate(&v)
		return v
	}
	if v := f(func(*Settings) {}); len(v) != 0 {
		t.Fatalf("default: got problems %v, want none", v)
	}
	for _, p := range Presets {
		if v := f(func(s *Settings) { s.Thresholds = p.Thresholds }); len(v) != 0 {
			t.Errorf("preset %s: got problems %v, want none", p.Name, v)
		}
	}
	start, end := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	half, two := 0.5, 2.0
	for _, tc := range []struct {
		field  string
		change func(s *Settings)
	}{
		{"feature_configs.age.method", func(s *Settings) { s.Features["age"] = FeatureConfig{Method: "t_test"} }},
		{"feature_configs.age.feature_type", func(s *Settings) { s.Features["age"] = FeatureConfig{Type: "ordinal"} }},
		{"feature_configs.age.method", func(s *Settings) { s.Features["age"] = FeatureConfig{Method: KS, Type: Categorical} }},
		{"feature_configs.age.threshold", func(s *Settings) { s.Features["age"] = FeatureConfig{Threshold: &two, Method: JS} }},
		{"feature_configs.age.threshold", func(s *Settings) { s.Features["age"] = FeatureConfig{Threshold: &two} }},
		{"feature_configs. ", func(s *Settings) { s.Features[" "] = FeatureConfig{Threshold: &half} }},
		{"concept_drift_config.metric", func(s *Settings) { s.ConceptDrift.Metric = "" }},
		{"concept_drift_config.window", func(s *Settings) { s.ConceptDrift.Window = "2h" }},
		{"concept_drift_config.min_samples", func(s *Settings) { s.ConceptDrift.MinSamples = 0 }},
		{"alert_config.min_severity", func(s *Settings) { s.Alerts.MinSeverity = "critical" }},
		{"alert_config.min_severity", func(s *Settings) { s.Alerts.MinSeverity = "" }},
		{"alert_config.channels[1].type", func(s *Settings) { s.Alerts.Channels = []Channel{{"slack", "#ml"}, {"sms", "+1"}} }},
		{"alert_config.channels[0].target", func(s *Settings) { s.Alerts.Channels = []Channel{{"email", "not an address"}} }},
		{"alert_config.channels[0].target", func(s *Settings) { s.Alerts.Channels = []Channel{{"webhook", "ftp://x"}} }},
		{"schedule_config.interval", func(s *Settings) { s.Schedule.Interval = "90m" }},
		{"schedule_config.window", func(s *Settings) { s.Schedule.Window = "" }},
		{"schedule_config.reference.type", func(s *Settings) { s.Schedule.Reference.Type = "rolling" }},
		{"schedule_config.reference.start", func(s *Settings) { s.Schedule.Reference = Reference{Type: ReferenceWindow, End: &end} }},
		{"schedule_config.reference.end", func(s *Settings) { s.Schedule.Reference = Reference{Type: ReferenceWindow, Start: &start} }},
		{"schedule_config.reference.end", func(s *Settings) { s.Schedule.Reference = Reference{Type: ReferenceWindow, Start: &end, End: &start} }},
		{"schedule_config.reference", func(s *Settings) { s.Schedule.Reference = Reference{Type: ReferenceUploaded, Start: &start} }},
		{"schedule_config.reference.type", func(s *Settings) { s.Schedule.Reference = Reference{Type: "file"} }},
		{"threshold_config.ks_test", func(s *Settings) { s.Thresholds.KS = 1 }},
		{"threshold_config.chi_squared", func(s *Settings) { s.Thresholds.ChiSquared = 0 }},
		{"threshold_config.psi", func(s *Settings) { s.Thresholds.PSI = -0.1 }},
		{"threshold_config.js_divergence", func(s *Settings) { s.Thresholds.JS = 1.5 }},
		{"threshold_config.concept_drift", func(s *Settings) { s.Thresholds.ConceptDrift = 0 }},
		{"threshold_config.severity.medium", func(s *Settings) { s.Thresholds.Severity.Medium = 0 }},
		{"threshold_config.severity.high", func(s *Settings) { s.Thresholds.Severity.High = 0.1 }},
	} {
		if v := f(tc.change); v[tc.field] == nil {
			t.Errorf("%s: got problems %v, want one naming it", tc.field, v)
		}
	}
	ok := []Channel{{"email", "ops@example.com"}, {"webhook", "https://example.com/hook"}, {"slack", "#ml-alerts"}}
	if v := f(func(s *Settings) { s.Alerts.Channels = ok }); len(v) != 0 {
		t.Errorf("good channels: got problems %v, want none", v)
	}
}

func TestSensitivity(t *testing.T) {
	for _, p := range Presets {
		if got := sensitivity(p.Thresholds); got != p.Name {
			t.Errorf("%s's thresholds: got %s, want %s", p.Name, got, p.Name)
		}
	}
	custom := Presets[0].Thresholds
	custom.PSI = 0.3
	if got := sensitivity(custom); got != "custom" {
		t.Errorf("changed thresholds: got %s, want custom", got)
	}
	if got := sensitivity(Thresholds{}); got != "medium" {
		t.Errorf("zero thresholds: got %s, want medium (zero fields take its values)", got)
	}
}
