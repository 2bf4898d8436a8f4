package alerts

import (
	"fmt"

	"github.com/vigilhq/vigil/drift"
)

// ManagedByDrift is the managed_by of the rule a drift configuration's
// alert_config becomes: "drift_config:" and the model's id.
func ManagedByDrift(modelID string) string { return "drift_config:" + modelID }

// intervalMinutes are the drift schedule's intervals in minutes.
var intervalMinutes = map[string]int{"1h": 60, "6h": 360, "12h": 720, "24h": 1440, "7d": 10080}

// DriftRule returns the rule a drift configuration's alert_config
// becomes, and false when it becomes none (alert_config.enabled false).
// The rule watches the configuration's model: one condition
// drift_score gte the score from which a drift is graded min_severity
// (threshold_config.severity: medium or high; for low, gt 0: any report
// with a positive overall score), over a window of the schedule's
// interval (so that each scheduled report is seen), with the rule's
// severity min_severity and alert_config.channels as its channels. The
// caller keeps the stored rule's id and creation fields.
func DriftRule(c drift.Config) (Rule, bool) {
	a := c.Alerts
	if !a.Enabled {
		return Rule{}, false
	}
	cut := c.Thresholds.Effective().Severity
	cond := Condition{MetricName: "drift_score", Operator: "gt", Threshold: 0, WindowMinutes: 60}
	switch a.MinSeverity {
	case drift.Medium:
		cond.Operator, cond.Threshold = "gte", cut.Medium
	case drift.High, "":
		cond.Operator, cond.Threshold = "gte", cut.High
	}
	if m, ok := intervalMinutes[c.Schedule.Interval]; ok {
		cond.WindowMinutes = m
	}
	sev := string(a.MinSeverity)
	if sev == "" {
		sev = string(drift.High)
	}
	chans := make([]Channel, 0, len(a.Channels))
	for _, ch := range a.Channels {
		chans = append(chans, Channel{Type: ch.Type, Target: ch.Target})
	}
	return Rule{OrgID: c.OrgID, ModelID: c.ModelID, ManagedBy: ManagedByDrift(c.ModelID),
		Name:        "Drift of model " + c.ModelID,
		Description: fmt.Sprintf("Managed by the drift configuration of model %s (its alert_config): change or disable it there.", c.ModelID),
		AlertType:   "drift", Severity: sev, Conditions: []Condition{cond}, Channels: chans, Enabled: true,
		CooldownMinutes: DefaultCooldownMinutes, CreatedBy: SystemUser}, true
}

// managedProblem is the message of the 409 a change or deletion of a
// managed rule answers, "" for a rule users define.
func (r Rule) managedProblem() string {
	if r.ManagedBy == "" {
		return ""
	}
	return fmt.Sprintf("alert rule %s is managed by %s: change or disable it through that resource (for a drift configuration, "+
		"its alert_config with PUT /api/v1/drift-config/{model_id}), not through /alerts/rules", r.ID, r.ManagedBy)
}
