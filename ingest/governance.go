package ingest

import "time"

// Source types of a governance event: what raised it.
const (
	// SourceDriftReport: a drift report at high severity.
	SourceDriftReport = "drift_report"
)

// Governance is an event for the risk register (KindGovernance): something
// a model did that may call for a risk entry. Its schema is
// schemas/events/governance.schema.json.
type Governance struct {
	// EventID identifies the event, so that a replay is seen once.
	EventID string `json:"event_id"`
	OrgID   string `json:"org_id"`
	ModelID string `json:"model_id"`
	// SourceType says what raised the event (SourceDriftReport), SourceID
	// which record did: the drift report's id.
	SourceType string `json:"source_type"`
	SourceID   string `json:"source_id"`
	// Severity is the source's severity: low, medium or high.
	Severity string `json:"severity"`
	// Summary is one line for a person, naming what drifted.
	Summary   string    `json:"summary"`
	Timestamp time.Time `json:"timestamp"`
}

// GovernanceRecord encodes e as a record of the log, keyed like the
// model's other events.
func GovernanceRecord(e Governance) (Record, error) {
	b, err := EncodeEvent(e)
	if err != nil {
		return Record{}, err
	}
	return Record{Kind: KindGovernance, Key: e.OrgID + "/" + e.ModelID, Value: b}, nil
}
