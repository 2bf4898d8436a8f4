package workflow

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/web"
)

// Limits of a report.
const (
	// MaxBody is the largest report body, 10 MiB; larger ones answer 413.
	MaxBody = 10 << 20
	// MaxNodes is the most node records one report may hold.
	MaxNodes = 10000
	maxID    = 255
	maxName  = 255
	maxError = 10000
)

// report is the execution report of spec 2. workflow_id, execution_id,
// status and started_at are required, and node_name, node_type and status
// of each node; the rest is optional.
type report struct {
	WorkflowID   string         `json:"workflow_id"`
	WorkflowName string         `json:"workflow_name"`
	ExecutionID  string         `json:"execution_id"`
	Status       string         `json:"status"`
	StartedAt    *string        `json:"started_at"`
	FinishedAt   *string        `json:"finished_at"`
	Mode         *string        `json:"mode"`
	Nodes        []node         `json:"nodes"`
	MetaData     map[string]any `json:"meta_data"`
}

type node struct {
	NodeName        string         `json:"node_name"`
	NodeType        string         `json:"node_type"`
	InputData       map[string]any `json:"input_data"`
	OutputData      map[string]any `json:"output_data"`
	ExecutionTimeMS int64          `json:"execution_time_ms"`
	Status          string         `json:"status"`
	Error           string         `json:"error"`
}

// validate checks the report, naming each offending field, and returns its
// start and finish times.
func (r *report) validate() (started time.Time, finished *time.Time, err error) {
	var v web.Problems
	v.Required("workflow_id", r.WorkflowID)
	v.MaxLen("workflow_id", r.WorkflowID, maxID)
	if strings.Contains(r.WorkflowID, ":") {
		v.Add("workflow_id", "must not contain ':', which separates the parts of the external id")
	}
	v.Required("execution_id", r.ExecutionID)
	v.MaxLen("execution_id", r.ExecutionID, maxID)
	v.MaxLen("workflow_name", r.WorkflowName, maxName)
	v.Required("status", r.Status)
	v.OneOf("status", r.Status, RunStatuses...)
	if r.Mode != nil && !slices.Contains(Modes, *r.Mode) {
		v.Add("mode", "must be one of "+strings.Join(Modes, ", "))
	}
	if r.StartedAt == nil {
		v.Add("started_at", "is required")
	}
	started = v.Time("started_at", r.StartedAt)
	if r.FinishedAt != nil {
		f := v.Time("finished_at", r.FinishedAt)
		if !f.IsZero() && !started.IsZero() && f.Before(started) {
			v.Add("finished_at", "must not be before started_at")
		}
		finished = &f
	}
	if len(r.Nodes) > MaxNodes {
		v.Add("nodes", fmt.Sprintf("at most %d node records", MaxNodes))
	}
	for i, n := range r.Nodes {
		at := func(f string) string { return fmt.Sprintf("nodes[%d].%s", i, f) }
		v.Required(at("node_name"), n.NodeName)
		v.MaxLen(at("node_name"), n.NodeName, maxName)
		v.Required(at("node_type"), n.NodeType)
		v.MaxLen(at("node_type"), n.NodeType, maxName)
		v.Required(at("status"), n.Status)
		v.OneOf(at("status"), n.Status, NodeStatuses...)
		v.MaxLen(at("error"), n.Error, maxError)
		if n.ExecutionTimeMS < 0 {
			v.Add(at("execution_time_ms"), "must not be negative")
		}
	}
	return started, finished, v.Err()
}

// run maps a valid report of organization orgID, received at now, to what
// it stores under settings, bound to a fresh record id. A node left out by
// settings keeps its position: the positions of the others do not move.
//
// A report becomes the workflow record with external id
// workflow-tool:{workflow_id}:{execution_id} and framework "workflow-tool";
// each node becomes an agent named node_name whose role is node_type, an AI
// agent when the type ends in .openAi or .openAiChat (whatever the tool's
// prefix) or contains "ai" (case-sensitive, as the spec writes it: so
// "emailSend" counts too), else a utility agent; each node record becomes
// one execution with its input, output, execution_time_ms, status and
// error. A node name reported twice in one run (a loop) is one agent with
// several executions.
func (r *report) run(orgID string, started time.Time, finished *time.Time, now time.Time, settings Settings) Run {
	name := r.WorkflowName
	if name == "" {
		name = r.WorkflowID
	}
	mode := ""
	if r.Mode != nil {
		mode = *r.Mode
	}
	meta := r.MetaData
	if meta == nil {
		meta = map[string]any{}
	}
	run := Run{Workflow: Workflow{OrgID: orgID, ExternalID: ExternalID(r.WorkflowID, r.ExecutionID),
		ToolWorkflowID: r.WorkflowID, ToolExecutionID: r.ExecutionID, Name: name, Framework: Source,
		State: State(r.Status, finished), ReportedStatus: r.Status, Mode: mode, Metadata: meta,
		StartedAt: started, FinishedAt: finished, UpdatedAt: now}}
	seen := map[string]int{}
	for i, n := range r.Nodes {
		if !settings.Tracks(n.NodeType, n.ExecutionTimeMS, n.Status) {
			continue
		}
		if j, ok := seen[n.NodeName]; ok {
			run.Agents[j].Executions++
		} else {
			seen[n.NodeName] = len(run.Agents)
			run.Agents = append(run.Agents, Agent{OrgID: orgID, Name: n.NodeName, Role: n.NodeType,
				Kind: Kind(n.NodeType), Executions: 1})
		}
		run.Executions = append(run.Executions, Execution{OrgID: orgID, AgentName: n.NodeName, Position: i,
			Input: orEmpty(n.InputData), Output: orEmpty(n.OutputData), ExecutionTimeMS: n.ExecutionTimeMS,
			Status: n.Status, Error: n.Error})
	}
	run.Workflow.AgentCount, run.Workflow.ExecutionCount = len(run.Agents), len(run.Executions)
	run.Bind(uuid.Must(uuid.NewV7()).String(), now)
	return run
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
