package workflow

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Permissions of the routes.
const (
	PermissionReceive = "webhooks:write"
	PermissionRead    = "integrations:read"
	// PermissionConfigure changes the receiver's settings.
	PermissionConfigure = "integrations:write"
)

// ExecutionPath is the receiver's path below /api/v1.
const ExecutionPath = "/webhooks/workflow-tool/execution"

// API serves the receiver and the read routes.
type API struct {
	Store Store
	// LLM logs the LLM calls of the AI nodes whose output reports token
	// counts; nil logs none.
	LLM LLMLog
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		// Spec 2 gives the receiver no rate limit: a workflow tool that
		// does not retry would lose run reports to a 429. What bounds it is
		// the key (webhooks:write), MaxBody, MaxNodes and the request
		// timeout.
		{Method: fiber.MethodPost, Path: ExecutionPath, Permission: PermissionReceive, Bucket: web.BucketNone, Handler: a.receive},
		{Method: fiber.MethodGet, Path: "/webhooks/workflow-tool/config", Permission: PermissionReceive, Handler: a.config},
		{Method: fiber.MethodPut, Path: "/webhooks/workflow-tool/config", Permission: PermissionConfigure, Handler: a.putConfig},
		{Method: fiber.MethodPost, Path: "/webhooks/workflow-tool/test", Permission: PermissionReceive, Handler: a.test},
		{Method: fiber.MethodGet, Path: "/workflows", Permission: PermissionRead, Handler: a.list},
		{Method: fiber.MethodGet, Path: "/workflows/:workflow_id", Permission: PermissionRead, Handler: a.get},
		{Method: fiber.MethodGet, Path: "/workflows/:workflow_id/agents", Permission: PermissionRead, Handler: a.agents},
		{Method: fiber.MethodGet, Path: "/workflows/:workflow_id/executions", Permission: PermissionRead, Handler: a.executions},
		{Method: fiber.MethodGet, Path: "/workflows/:workflow_id/agents/:agent_id/executions", Permission: PermissionRead, Handler: a.executions},
	}
}

// receipt is the execution endpoint's answer.
type receipt struct {
	Status     string    `json:"status"`
	WorkflowID string    `json:"workflow_id"`
	Message    string    `json:"message"`
	ReceivedAt time.Time `json:"received_at"`
}

// keyOnly answers 401 unless the caller authenticated with an API key: the
// receiver is for the tool, which holds a key, not a login.
func keyOnly(c *fiber.Ctx) error {
	if identity.FromCtx(c).KeyID == "" {
		return web.Unauthenticated("the workflow-tool receiver takes an API key with " + PermissionReceive +
			": send Authorization: Bearer vgl_live_...")
	}
	return nil
}

func (a *API) receive(c *fiber.Ctx) error {
	if err := keyOnly(c); err != nil {
		return err
	}
	if len(c.Body()) > MaxBody {
		return web.NewError(http.StatusRequestEntityTooLarge, web.CodePayloadTooLarge, "an execution report is at most 10 MiB")
	}
	var r report
	if err := web.Decode(c, &r); err != nil {
		return err
	}
	started, finished, err := r.validate()
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	org := identity.OrgID(c)
	settings, err := a.Store.WorkflowSettings(c.UserContext(), org)
	if err != nil {
		return err
	}
	run := r.run(org, started, finished, now, settings)
	w, msg, stored, err := a.save(c, run)
	if err != nil {
		return err
	}
	if calls := LLMCalls(run); stored && a.LLM != nil && len(calls) > 0 {
		// After the record: a report sent again after a failure here
		// replaces the record and logs the calls again, each once by id.
		if err := a.LLM.LogLLMCalls(c.UserContext(), org, identity.FromCtx(c).UserID, calls); err != nil {
			return err
		}
	}
	return c.JSON(receipt{Status: "success", WorkflowID: w.ID, Message: msg, ReceivedAt: now})
}

// save stores run and says what happened to it, and whether the run is
// now what is stored (created or replaced).
func (a *API) save(c *fiber.Ctx, run Run) (Workflow, string, bool, error) {
	replaced := false
	w, created, err := a.Store.SaveRun(c.UserContext(), run, func(stored Workflow) bool {
		replaced = Replaces(stored.State, run.Workflow.State)
		return replaced
	})
	switch {
	case err != nil:
		return w, "", false, err
	case created:
		return w, "workflow run recorded", true, nil
	case replaced:
		return w, "workflow run updated", true, nil
	}
	return w, "workflow run has finished already; this report changes nothing", false, nil
}

// configuration is the config endpoint's answer.
type configuration struct {
	WebhookURL string `json:"webhook_url"`
	// APIKey is the display hint of the key the caller sent: keys are
	// stored as hashes, and a raw key is shown only when created.
	APIKey             string `json:"api_key"`
	TrackAllNodes      bool   `json:"track_all_nodes"`
	MinExecutionTimeMS int64  `json:"min_execution_time_ms"`
}

func (a *API) config(c *fiber.Ctx) error {
	if err := keyOnly(c); err != nil {
		return err
	}
	st, err := a.Store.WorkflowSettings(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	_, raw, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	return c.JSON(configuration{WebhookURL: c.BaseURL() + "/api/v1" + ExecutionPath,
		APIKey: identity.KeyHint(strings.TrimSpace(raw)), TrackAllNodes: st.TrackAllNodes, MinExecutionTimeMS: st.MinExecutionTimeMS})
}

// settingsRequest changes the receiver's settings; a field left out keeps
// its value.
type settingsRequest struct {
	TrackAllNodes      *bool    `json:"track_all_nodes"`
	MinExecutionTimeMS *web.Int `json:"min_execution_time_ms"`
}

// putConfig changes the organization's receiver settings, applied to the
// reports received after it, and answers them.
func (a *API) putConfig(c *fiber.Ctx) error {
	var req settingsRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if m := req.MinExecutionTimeMS; m != nil && (*m < 0 || *m > MaxMinExecutionTimeMS) {
		return web.Invalid("min_execution_time_ms", "must be between 0 and 86400000 (a day)")
	}
	org := identity.OrgID(c)
	st, err := a.Store.WorkflowSettings(c.UserContext(), org)
	if err != nil {
		return err
	}
	if req.TrackAllNodes != nil {
		st.TrackAllNodes = *req.TrackAllNodes
	}
	if req.MinExecutionTimeMS != nil {
		st.MinExecutionTimeMS = int64(*req.MinExecutionTimeMS)
	}
	if err := a.Store.PutWorkflowSettings(c.UserContext(), org, st, a.Clock.Now()); err != nil {
		return err
	}
	return c.JSON(st)
}

// testResult is the test endpoint's answer.
type testResult struct {
	Status     string `json:"status"`
	WorkflowID string `json:"workflow_id"`
	Message    string `json:"message"`
}

// test stores, or refreshes, the calling key's connection-test record
// through the same path as a report: workflow-tool:connection-test:{key id}.
func (a *API) test(c *fiber.Ctx) error {
	if err := keyOnly(c); err != nil {
		return err
	}
	if err := web.NoBody(c); err != nil {
		return err
	}
	now := a.Clock.Now()
	started := now.Format(time.RFC3339Nano)
	mode := "manual"
	r := report{WorkflowID: "connection-test", WorkflowName: "Connection test", ExecutionID: identity.FromCtx(c).KeyID,
		Status: "success", StartedAt: &started, FinishedAt: &started, Mode: &mode, MetaData: map[string]any{"test": true}}
	w, _, _, err := a.save(c, r.run(identity.OrgID(c), now, &now, now, DefaultSettings))
	if err != nil {
		return err
	}
	return c.JSON(testResult{Status: "test_successful", WorkflowID: w.ID,
		Message: "the API key is valid and the receiver stored the test run"})
}

func (a *API) list(c *fiber.Ctx) error {
	var v web.Problems
	f := Filter{State: v.EnumQuery(c, "state", "", States...), ToolWorkflowID: c.Query("tool_workflow")}
	v.IDQuery(c, "tool_workflow")
	if err := v.Err(); err != nil {
		return err
	}
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	f.Offset, f.Limit = (page-1)*size, size
	ws, total, err := a.Store.Workflows(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	return c.JSON(struct {
		Workflows []Workflow `json:"workflows"`
		web.Page
	}{orNone(ws), web.NewPage(total, page, size)})
}

// notFound turns the store's ErrNotFound into the 404 of what.
func notFound(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound(what)
	}
	return err
}

func (a *API) get(c *fiber.Ctx) error {
	w, err := a.Store.Workflow(c.UserContext(), identity.OrgID(c), c.Params("workflow_id"))
	if err != nil {
		return notFound(err, "workflow")
	}
	return c.JSON(w)
}

func (a *API) agents(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	as, total, err := a.Store.WorkflowAgents(c.UserContext(), identity.OrgID(c), c.Params("workflow_id"), (page-1)*size, size)
	if err != nil {
		return notFound(err, "workflow")
	}
	return c.JSON(struct {
		Agents []Agent `json:"agents"`
		web.Page
	}{orNone(as), web.NewPage(total, page, size)})
}

func (a *API) executions(c *fiber.Ctx) error {
	var v web.Problems
	f := ExecutionFilter{AgentID: c.Params("agent_id"), Status: v.EnumQuery(c, "status", "", NodeStatuses...)}
	if err := v.Err(); err != nil {
		return err
	}
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	f.Offset, f.Limit = (page-1)*size, size
	es, total, err := a.Store.WorkflowExecutions(c.UserContext(), identity.OrgID(c), c.Params("workflow_id"), f)
	if err != nil {
		what := "workflow"
		if f.AgentID != "" {
			what = "agent"
		}
		return notFound(err, what)
	}
	return c.JSON(struct {
		Executions []Execution `json:"executions"`
		web.Page
	}{orNone(es), web.NewPage(total, page, size)})
}

// orNone gives a nil list its empty value, so responses carry [].
func orNone[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
