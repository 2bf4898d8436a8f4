package risk

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/governance"
)

// rule is one row of spec 1's drafting table.
type rule struct {
	title    func(modelName, summary string) string
	category string
	impact   int
	// likelihood by the source's severity.
	likelihood map[string]int
}

// rules are the drafting rules by source type: a bias audit at high or
// critical severity, a drift report at high or critical severity, and a
// governance review denied or sent back.
var rules = map[string]rule{
	SourceBiasAudit: {func(m, _ string) string { return "Bias/fairness threshold breach for " + m },
		"bias", 4, map[string]int{"high": 4, "critical": 5}},
	SourceDriftReport: {func(m, _ string) string { return "High-severity drift detected for " + m },
		"drift", 3, map[string]int{"high": 4, "critical": 5}},
	SourceGovernanceReview: {func(_, s string) string { return "Governance review flagged: " + s },
		"operational", 3, map[string]int{"denied": 3, "changes_requested": 3}},
}

// ErrNoRule says an event qualifies for no drafting rule: an unknown
// source type, or a severity the rule does not draft.
var ErrNoRule = fmt.Errorf("no drafting rule applies")

// Draft returns the entry a governance event drafts, in status
// identified, scored under t, for the model named modelName (the title
// names it). The entry is drafted at at, by nobody (created_by null); its
// source is the event's record. A title longer than MaxTitle is cut.
func Draft(ev governance.Event, modelName string, t Thresholds, at time.Time) (Entry, error) {
	r, ok := rules[ev.SourceType]
	if !ok {
		return Entry{}, fmt.Errorf("%w: source type %q", ErrNoRule, ev.SourceType)
	}
	l, ok := r.likelihood[ev.Severity]
	if !ok {
		return Entry{}, fmt.Errorf("%w: %s at severity %q", ErrNoRule, ev.SourceType, ev.Severity)
	}
	title := []rune(r.title(modelName, ev.Summary))
	if len(title) > MaxTitle {
		title = title[:MaxTitle]
	}
	e := Entry{ID: uuid.Must(uuid.NewV7()).String(), OrgID: ev.OrgID, Title: string(title), Description: ev.Summary,
		Category: r.category, Likelihood: l, Impact: r.impact, Status: StatusIdentified, ModelIDs: []string{ev.ModelID},
		SourceType: ev.SourceType, SourceID: ev.SourceID, CreatedAt: at, UpdatedAt: at}
	score(&e, t)
	return e, nil
}
