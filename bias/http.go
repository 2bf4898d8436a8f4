package bias

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// API serves /bias/audit and /bias/audits: submit, read, list, cancel and
// delete audits.
type API struct {
	Store Store
	// Runner runs accepted audits; without one every audit fails at once
	// as not run.
	Runner *Runner
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/bias/audit", Permission: "bias:write", Bucket: web.BucketBatch, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/bias/audits", Permission: "bias:read", Handler: a.list},
		{Method: fiber.MethodGet, Path: "/bias/audits/:audit_id", Permission: "bias:read", Handler: a.get},
		{Method: fiber.MethodPost, Path: "/bias/audits/:audit_id/cancel", Permission: "bias:write", Handler: a.cancel},
		{Method: fiber.MethodDelete, Path: "/bias/audits/:audit_id", Permission: "bias:write", Handler: a.remove},
	}
}

// accepted is the 202 body of POST /bias/audit.
type accepted struct {
	ID        string    `json:"id"`
	ModelID   string    `json:"model_id"`
	Status    Status    `json:"status"`
	Message   string    `json:"message"`
	StatusURL string    `json:"status_url"`
	CreatedAt time.Time `json:"created_at"`
}

// create answers POST /bias/audit: the body (400, 422; y_pred longer than
// the Runner's MaxRows is a 422), then the model (404); the audit is
// stored pending and queued (503 when the queue is full).
func (a *API) create(c *fiber.Ctx) error {
	p, err := ParseRequest(c.Body())
	if err != nil {
		return err
	}
	if limit := a.Runner.maxRows(); p.Summary.Rows > int64(limit) {
		return web.Invalid("y_pred", fmt.Sprintf("got %d rows, want at most %d", p.Summary.Rows, limit))
	}
	now := a.Clock.Now()
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	au := Audit{ID: id.String(), OrgID: identity.OrgID(c), ModelID: p.ModelID, Status: StatusPending,
		Request: p.Summary, CreatedAt: now, UpdatedAt: now}
	if err := a.Store.CreateBiasAudit(c.UserContext(), au); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	} else if err != nil {
		return err
	}
	if a.Runner == nil || !a.Runner.Submit(au, p) {
		done := now
		au.Status, au.Error, au.CompletedAt = StatusFailed, reasonQueueFull, &done
		if err := a.Store.UpdateBiasAudit(c.UserContext(), au); err != nil {
			return err
		}
		return web.Unavailable("too many bias audits are queued; retry shortly", 30*time.Second, nil)
	}
	url := "/api/v1/bias/audits/" + au.ID
	c.Set(fiber.HeaderLocation, url)
	return c.Status(http.StatusAccepted).JSON(accepted{ID: au.ID, ModelID: au.ModelID, Status: au.Status,
		Message: "audit accepted; poll status_url until status is completed or failed", StatusURL: url, CreatedAt: au.CreatedAt})
}

// get answers GET /bias/audits/{audit_id}; another organization's audit is
// a 404 like a missing one.
func (a *API) get(c *fiber.Ctx) error {
	id, err := web.PathParam(c, "audit_id")
	if err != nil {
		return err
	}
	au, err := a.Store.BiasAudit(c.UserContext(), identity.OrgID(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("bias audit")
	} else if err != nil {
		return err
	}
	return c.JSON(newView(au))
}

// list answers GET /bias/audits: newest first, filtered by model_id and
// status, paged with page and page_size (default 50, at most 100).
func (a *API) list(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 100)
	if err != nil {
		return err
	}
	var v web.Problems
	f := Filter{ModelID: c.Query("model_id"), Limit: size, Offset: (page - 1) * size}
	f.Status = Status(v.EnumQuery(c, "status", "", "pending", "running", "completed", "failed", "cancelled"))
	v.Text("model_id", f.ModelID)
	if err := v.Err(); err != nil {
		return err
	}
	if f.ModelID != "" {
		// Another organization's model answers as a missing one does,
		// not with an empty page.
		if _, err := registry.Find(c.UserContext(), a.Store, identity.OrgID(c), f.ModelID); err != nil {
			return err
		}
	}
	audits, total, err := a.Store.BiasAudits(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	views := make([]view, 0, len(audits))
	for _, au := range audits {
		views = append(views, newView(au))
	}
	return c.JSON(auditPage{Page: web.NewPage(total, page, size), Audits: views})
}

// auditPage is the list's pagination envelope.
type auditPage struct {
	web.Page
	Audits []view `json:"audits"`
}
