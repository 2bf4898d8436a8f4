package app

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/integrations/workflow"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// workflowLLM logs the LLM calls of workflow-tool runs as completions of
// one registry model per tool workflow (name workflow-tool:{workflow_id},
// type llm, registered on its first call), appended to the event log as
// POST /llm/completions appends them: the same rollups, the same
// GET /llm/metrics, and a completion id seen before stored once.
type workflowLLM struct {
	models registry.Store
	log    eventlog.Log
	clock  clock.Clock
}

// WorkflowModelName is the registry name of a tool workflow's model.
func workflowModelName(toolWorkflowID string) string { return workflow.Source + ":" + toolWorkflowID }

func (w *workflowLLM) LogLLMCalls(ctx context.Context, orgID, userID string, calls []workflow.LLMCall) error {
	now := w.clock.Now()
	recs := make([]eventlog.Record, 0, len(calls))
	models := map[string]registry.Model{}
	for _, call := range calls {
		m, ok := models[call.ToolWorkflowID]
		if !ok {
			var err error
			if m, err = w.model(ctx, orgID, userID, call, now); err != nil {
				return err
			}
			models[call.ToolWorkflowID] = m
		}
		latency := call.LatencyMS
		rec, err := ingest.CompletionRecord(eventlog.Completion{OrgID: orgID, ID: call.ID, ModelID: m.ID, Provider: call.Provider,
			ModelName: call.ModelName, Tokens: eventlog.Tokens{PromptTokens: call.PromptTokens, CompletionTokens: call.CompletionTokens,
				TotalTokens: call.TotalTokens}, LatencyMS: &latency, Error: call.Error, Timestamp: now,
			Metadata: map[string]any{"source": workflow.Source, "workflow": call.ExternalID, "node_name": call.AgentName, "node_type": call.NodeType}})
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	err := w.log.Append(ctx, recs)
	if errors.Is(err, eventlog.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return web.Unavailable("the event log is unavailable: the run is recorded but its LLM calls may not be; "+
			"send the report again (each call is counted once)", 5*time.Second, err)
	}
	return err
}

// model returns the tool workflow's model, registering it the first time.
func (w *workflowLLM) model(ctx context.Context, orgID, userID string, call workflow.LLMCall, now time.Time) (registry.Model, error) {
	name := workflowModelName(call.ToolWorkflowID)
	find := func() (registry.Model, bool, error) {
		vs, err := w.models.ModelVersions(ctx, orgID, name)
		if err != nil && !errors.Is(err, store.ErrNotFound) || len(vs) == 0 {
			return registry.Model{}, false, err
		}
		return vs[0], true, nil
	}
	if m, ok, err := find(); ok || err != nil {
		return m, err
	}
	m := registry.Model{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, Name: name, Version: "1",
		Description: "LLM calls of the workflow-tool workflow " + call.WorkflowName, ModelType: "llm", Framework: workflow.Source,
		Status: registry.StatusActive, OwnerID: userID,
		Metadata:        map[string]any{"source": workflow.Source, "tool_workflow_id": call.ToolWorkflowID},
		BaselineMetrics: map[string]float64{}, MonitoringConfig: map[string]any{}, MonitoringEnabled: true, Features: []string{},
		FairnessAttributes: []string{}, ProtectedGroups: map[string]any{}, Tags: []string{workflow.Source}, CreatedAt: now, UpdatedAt: now}
	err := w.models.CreateModel(ctx, m)
	if errors.Is(err, store.ErrConflict) { // registered meanwhile by a concurrent report
		found, ok, err := find()
		if !ok && err == nil {
			err = store.ErrConflict
		}
		return found, err
	}
	return m, err
}
