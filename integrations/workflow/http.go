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
)

// ExecutionPath is the receiver's path below /api/v1.
const ExecutionPath = "/webhooks/workflow-tool/execution"

// API serves the receiver and the read routes.
type API struct {
	Store Store
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: ExecutionPath, Permission: PermissionReceive, Handler: a.receive},
		{Method: fiber.MethodGet, Path: "/webhooks/workflow-tool/config", Permission: PermissionReceive, Handler: a.config},
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
	w, msg, err := a.save(c, r.run(identity.OrgID(c), started, finished, now))
	if err != nil {
		return err
	}
	return c.JSON(receipt{Status: "success", WorkflowID: w.ID, Message: msg, ReceivedAt: now})
}

// save stores run and says what happened to it.
func (a *API) save(c *fiber.Ctx, run Run) (Workflow, string, error) {
	replaced := false
	w, created, err := a.Store.SaveRun(c.UserContext(), run, func(stored Workflow) bool {
		replaced = Replaces(stored.State, run.Workflow.State)
		return replaced
	})
	switch {
	case err != nil:
		return w, "", err
	case created:
		return w, "workflow run recorded", nil
	case replaced:
		return w, "workflow run updated", nil
	}
	return w, "workflow run has finished already; this report changes nothing", nil
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
	_, raw, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	return c.JSON(configuration{WebhookURL: c.BaseURL() + "/api/v1" + ExecutionPath,
		APIKey: identity.KeyHint(strings.TrimSpace(raw)), TrackAllNodes: true, MinExecutionTimeMS: 0})
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
	w, _, err := a.save(c, r.run(identity.OrgID(c), now, &now, now))
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
