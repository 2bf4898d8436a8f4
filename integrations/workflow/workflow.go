package workflow

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Source is the framework tag of every record this receiver makes, and the
// first part of its external ids.
const Source = "workflow-tool"

// States of a workflow record.
const (
	StateRunning   = "running"
	StateCompleted = "completed"
	StateFailed    = "failed"
)

// States lists every state.
var States = []string{StateRunning, StateCompleted, StateFailed}

// Agent kinds.
const (
	KindAI      = "ai"
	KindUtility = "utility"
)

// Report statuses (the run's) and node statuses.
var (
	RunStatuses  = []string{"success", "error", "running"}
	NodeStatuses = []string{"success", "error", "waiting"}
	Modes        = []string{"manual", "trigger", "webhook", "production"}
)

// Workflow is one run of a tool's workflow.
type Workflow struct {
	ID         string `json:"id"`
	OrgID      string `json:"-"`
	ExternalID string `json:"external_id"`
	// ToolWorkflowID and ToolExecutionID are the tool's own ids.
	ToolWorkflowID  string         `json:"tool_workflow_id"`
	ToolExecutionID string         `json:"tool_execution_id"`
	Name            string         `json:"name"`
	Framework       string         `json:"framework"`
	State           string         `json:"state"`
	ReportedStatus  string         `json:"reported_status"`
	Mode            string         `json:"mode"`
	Metadata        map[string]any `json:"metadata"`
	StartedAt       time.Time      `json:"started_at"`
	FinishedAt      *time.Time     `json:"finished_at"`
	AgentCount      int            `json:"agent_count"`
	ExecutionCount  int            `json:"execution_count"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

// Agent is one node of a workflow record.
type Agent struct {
	ID         string `json:"id"`
	OrgID      string `json:"-"`
	WorkflowID string `json:"workflow_id"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	Kind       string `json:"agent_type"`
	// Executions counts the agent's executions in the run.
	Executions int       `json:"execution_count"`
	CreatedAt  time.Time `json:"created_at"`
}

// Execution is one node execution of a run.
type Execution struct {
	ID         string `json:"id"`
	OrgID      string `json:"-"`
	WorkflowID string `json:"workflow_id"`
	AgentID    string `json:"agent_id"`
	AgentName  string `json:"agent_name"`
	// Position is the node's index in the report's nodes.
	Position        int            `json:"position"`
	Input           map[string]any `json:"input_data"`
	Output          map[string]any `json:"output_data"`
	ExecutionTimeMS int64          `json:"execution_time_ms"`
	Status          string         `json:"status"`
	Error           string         `json:"error"`
	CreatedAt       time.Time      `json:"created_at"`
}

// Run is what one report stores: the record, its agents and executions.
type Run struct {
	Workflow   Workflow
	Agents     []Agent
	Executions []Execution
}

// Bind gives the run the record id id and creation time created, and its
// agents and executions the ids derived from them, so that a repeated
// delivery keeps every id.
func (r *Run) Bind(id string, created time.Time) {
	r.Workflow.ID, r.Workflow.CreatedAt = id, created
	ns := uuid.MustParse(id)
	agents := map[string]string{}
	for i := range r.Agents {
		a := &r.Agents[i]
		a.ID = uuid.NewSHA1(ns, []byte("agent:"+a.Name)).String()
		a.WorkflowID, a.CreatedAt = id, created
		agents[a.Name] = a.ID
	}
	for i := range r.Executions {
		e := &r.Executions[i]
		e.ID = uuid.NewSHA1(ns, []byte("execution:"+strconv.Itoa(e.Position))).String()
		e.WorkflowID, e.AgentID, e.CreatedAt = id, agents[e.AgentName], created
	}
}

// ExternalID is the record's external id for the tool's workflow and
// execution ids.
func ExternalID(workflowID, executionID string) string {
	return Source + ":" + workflowID + ":" + executionID
}

// State is the record state a report's status and finished_at give.
//
//	report status  finished_at  record state
//	running        any          running
//	success        set          completed
//	error          set          failed
//	success/error  absent       running (the run has not reported its end)
//
// A repeated delivery of the same execution (same organization and
// external id) updates the stored record in place: its fields, agents and
// executions become the report's, its id and created_at stay, and agent
// and execution ids are derived from the record's id, the agent's name
// and the node's position, so they are stable across deliveries. A report
// that would move a completed or failed record back to running (a late
// retry of an earlier report) is acknowledged and changes nothing.
// Concurrent deliveries of one run make one record.
func State(status string, finished *time.Time) string {
	switch {
	case finished == nil || status == "running":
		return StateRunning
	case status == "success":
		return StateCompleted
	case status == "error":
		return StateFailed
	}
	return StateRunning
}

// Kind is the agent kind of a node type: AI for the tool's OpenAI types
// and any type containing "ai", utility otherwise.
func Kind(nodeType string) string {
	suffix := nodeType[strings.LastIndexByte(nodeType, '.')+1:]
	if suffix == "openAi" || suffix == "openAiChat" || strings.Contains(nodeType, "ai") {
		return KindAI
	}
	return KindUtility
}

// Replaces reports whether a report giving next may replace a stored
// record in state prev: anything but a finished run going back to
// running.
func Replaces(prev, next string) bool {
	return prev == StateRunning || next != StateRunning
}

// Filter narrows a workflow list. Zero fields do not filter.
type Filter struct {
	State string
	// ToolWorkflowID keeps the runs of one tool workflow.
	ToolWorkflowID string
	Offset, Limit  int
}

// ExecutionFilter narrows an execution list. Zero fields do not filter.
type ExecutionFilter struct {
	AgentID       string
	Status        string
	Offset, Limit int
}

// Store keeps workflow records. Every method takes the caller's
// organization; another organization's record reports store.ErrNotFound
// like a missing one.
type Store interface {
	// SaveRun stores run under its organization and external id. When no
	// record has them, run is stored as it is (created true). Otherwise,
	// inside one transaction that holds the stored record, replace is
	// called with it: false leaves everything as it was; true binds run to
	// the stored id and created_at (Run.Bind) and replaces the record's
	// fields, agents and executions with run's. It returns the record as
	// stored. Concurrent calls for one external id make one record.
	SaveRun(ctx context.Context, run Run, replace func(stored Workflow) bool) (w Workflow, created bool, err error)
	Workflow(ctx context.Context, orgID, id string) (Workflow, error)
	// Workflows returns a page of the organization's records, newest
	// started first, and how many match.
	Workflows(ctx context.Context, orgID string, f Filter) ([]Workflow, int64, error)
	// WorkflowAgents returns a page of a record's agents in name order and
	// how many it has; store.ErrNotFound for another organization's record.
	WorkflowAgents(ctx context.Context, orgID, workflowID string, offset, limit int) ([]Agent, int64, error)
	// WorkflowExecutions returns a page of a record's executions in node
	// order and how many match; store.ErrNotFound for another
	// organization's record, and for an f.AgentID the record does not have.
	WorkflowExecutions(ctx context.Context, orgID, workflowID string, f ExecutionFilter) ([]Execution, int64, error)
	SettingsStore
}
