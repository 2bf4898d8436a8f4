package governance

import (
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// Source types of a governance event: what raised it.
const (
	// SourceDriftReport: a drift report at high severity.
	SourceDriftReport = "drift_report"
	// SourceBiasAudit: a completed bias audit at high or critical
	// severity.
	SourceBiasAudit = "bias_audit"
	// SourceGovernanceReview: a review request finalized denied or
	// sent back (governance/review); its severity is the outcome,
	// denied or changes_requested, and its summary the request's title.
	SourceGovernanceReview = "governance_review"
)

// Event is an event for the risk register (eventlog.KindGovernance): something
// a model did that may call for a risk entry. Its schema is
// schemas/events/governance.schema.json.
type Event struct {
	// EventID identifies the event, so that a replay is seen once.
	EventID string `json:"event_id"`
	OrgID   string `json:"org_id"`
	ModelID string `json:"model_id"`
	// SourceType says what raised the event (SourceDriftReport,
	// SourceBiasAudit), SourceID which record did: the report's or the
	// audit's id.
	SourceType string `json:"source_type"`
	SourceID   string `json:"source_id"`
	// Severity is the source's severity: high for drift reports, high or
	// critical for bias audits; for a review request its outcome.
	Severity string `json:"severity"`
	// Summary is one line for a person, naming what drifted or which
	// group and metric failed.
	Summary   string    `json:"summary"`
	Timestamp time.Time `json:"timestamp"`
}

// EventRecord encodes e as a record of the log, keyed like the
// model's other events.
func EventRecord(e Event) (eventlog.Record, error) {
	b, err := eventlog.EncodeEvent(e)
	if err != nil {
		return eventlog.Record{}, err
	}
	return eventlog.Record{Kind: eventlog.KindGovernance, Key: e.OrgID + "/" + e.ModelID, Value: b}, nil
}
