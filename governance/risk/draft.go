package risk

import (
	"fmt"
	"strings"
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
//
// Draft turns a governance event into an entry by spec 1's table: a bias
// audit at high or critical severity is "Bias/fairness threshold breach
// for <model>" (bias, likelihood 4 or 5, impact 4), a drift report at high
// or critical severity "High-severity drift detected for <model>" (drift,
// 4 or 5, 3), a review request denied or sent back "Governance review
// flagged: <request title>" (operational, 3, 3); status identified, no
// creator, source_type and source_id naming the record. The category is
// the table's whatever the organization's taxonomy holds. The store keeps
// one entry per source record (processors/drafting runs it), and, for
// drift reports and bias audits, one open entry per model and source
// type: while it is open, a later qualifying result of the model is added
// to its trail (Repeat: an event naming the source, the likelihood raised
// when the new one is higher) instead of opening another.
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

// ActionRepeat is the audit-trail action of a repeat trigger added to an
// open drafted entry (Details holds source_type, source_id and the
// likelihood the trigger drafts).
const ActionRepeat = "repeat_trigger"

// repeatSpace is the namespace of the repeat events' ids.
var repeatSpace = uuid.MustParse("6f1d3a52-9a57-4c11-8f0e-3b7c2a1d9e40")

// Repeats reports whether a drafted entry of the source type takes in
// the later qualifying results of its model while it is open (drift
// reports and bias audits, which recur for one model) rather than each
// opening an entry of its own. A governance review's entries stay one per
// request.
func Repeats(sourceType string) bool {
	return sourceType == SourceDriftReport || sourceType == SourceBiasAudit
}

// Repeat adds the drafted d to open, the open entry drafted earlier from
// the same source type for the same model: an ActionRepeat event naming
// d's source, and, when d's likelihood is higher, the likelihood raised
// (score and severity under d's thresholds) with its ActionUpdate event.
// The events' ids are derived from the entry and d's source, so that a
// replayed trigger is recognised (the store adds an id once).
func Repeat(open Entry, d Drafted) (Entry, []Event) {
	src := d.Entry
	key := open.OrgID + "/" + open.ID + "/" + src.SourceType + "/" + src.SourceID
	// The trail is in time order: the raise a microsecond after the
	// repeat it follows.
	ev := func(n int, action, desc string, details map[string]any) Event {
		return Event{ID: uuid.NewSHA1(repeatSpace, []byte(fmt.Sprint(key, "/", n))).String(), OrgID: open.OrgID, EntryID: open.ID,
			Action: action, Description: desc, Details: details, Username: SystemUser,
			CreatedAt: src.CreatedAt.Add(time.Duration(n) * time.Microsecond)}
	}
	evs := []Event{ev(0, ActionRepeat, fmt.Sprintf("repeat trigger: %s %s at likelihood %d", strings.ReplaceAll(src.SourceType, "_", " "),
		src.SourceID, src.Likelihood), map[string]any{"source_type": src.SourceType, "source_id": src.SourceID, "likelihood": src.Likelihood})}
	if src.Likelihood > open.Likelihood {
		evs = append(evs, ev(1, ActionUpdate, "likelihood changed", map[string]any{"field": "likelihood",
			"from": open.Likelihood, "to": src.Likelihood}))
		open.Likelihood = src.Likelihood
		score(&open, d.Thresholds)
	}
	open.UpdatedAt = src.CreatedAt
	return open, evs
}
