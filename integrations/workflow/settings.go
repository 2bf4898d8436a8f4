package workflow

import (
	"context"
	"time"
)

// Settings are an organization's receiver settings, the config answer's
// track_all_nodes and min_execution_time_ms.
//
// PUT /webhooks/workflow-tool/config (integrations:write) sets the
// organization's track_all_nodes and min_execution_time_ms, which GET
// config answers: without track_all_nodes only AI nodes become agents and
// executions; executions shorter than min_execution_time_ms are left out
// unless they failed. They apply to the reports received afterwards; a
// node left out keeps its position, so execution ids do not move.
type Settings struct {
	// TrackAllNodes false keeps only the AI nodes (Kind KindAI) of a
	// report: utility nodes become neither agents nor executions.
	TrackAllNodes bool `json:"track_all_nodes"`
	// MinExecutionTimeMS leaves out the executions that took less, except
	// failed ones (status error), which are kept whatever their time.
	MinExecutionTimeMS int64 `json:"min_execution_time_ms"`
}

// DefaultSettings are those of an organization that set none: every node,
// whatever its time.
var DefaultSettings = Settings{TrackAllNodes: true}

// MaxMinExecutionTimeMS bounds min_execution_time_ms (a day).
const MaxMinExecutionTimeMS = 24 * 60 * 60 * 1000

// Tracks reports whether a node of type nodeType that took ms
// milliseconds and ended with status is logged under s.
func (s Settings) Tracks(nodeType string, ms int64, status string) bool {
	if !s.TrackAllNodes && Kind(nodeType) != KindAI {
		return false
	}
	return ms >= s.MinExecutionTimeMS || status == "error"
}

// SettingsStore keeps the receiver settings.
type SettingsStore interface {
	// WorkflowSettings returns the organization's settings, DefaultSettings
	// when it set none.
	WorkflowSettings(ctx context.Context, orgID string) (Settings, error)
	// PutWorkflowSettings stores the organization's settings.
	PutWorkflowSettings(ctx context.Context, orgID string, s Settings, now time.Time) error
}
