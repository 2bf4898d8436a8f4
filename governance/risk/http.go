package risk

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Permissions of the register: viewers read, editors write, admins
// configure the scoring.
const (
	PermRead      = "risk:read"
	PermWrite     = "risk:write"
	PermConfigure = "risk:configure"
)

// API serves /risk-register.
type API struct {
	Store Store
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package. The fixed paths come
// before /risk-register/{entry_id}, which would otherwise take them.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/risk-register", Permission: PermWrite, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/risk-register", Permission: PermRead, Handler: a.list},
		{Method: fiber.MethodGet, Path: "/risk-register/config", Permission: PermRead, Handler: a.getConfig},
		{Method: fiber.MethodPut, Path: "/risk-register/config", Permission: PermConfigure, Handler: a.putConfig},
		{Method: fiber.MethodGet, Path: "/risk-register/portfolio", Permission: PermRead, Handler: a.portfolio},
		{Method: fiber.MethodGet, Path: "/risk-register/:entry_id", Permission: PermRead, Handler: a.get},
		{Method: fiber.MethodPatch, Path: "/risk-register/:entry_id", Permission: PermWrite, Handler: a.update},
		{Method: fiber.MethodGet, Path: "/risk-register/:entry_id/history", Permission: PermRead, Handler: a.history},
	}
}

// config returns the organization's configuration in force.
func (a *API) config(ctx context.Context, orgID string) (Config, error) {
	o, err := a.Store.RiskConfig(ctx, orgID)
	if err != nil {
		return Config{}, err
	}
	return o.Apply(), nil
}

func (a *API) getConfig(c *fiber.Ctx) error {
	cfg, err := a.config(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return c.JSON(cfg)
}

// putConfig overrides the parts sent; the others keep their value
// (default or an earlier override). Stored entries keep their severity.
func (a *API) putConfig(c *fiber.Ctx) error {
	var req configRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	next, err := req.override()
	if err != nil {
		return err
	}
	org := identity.OrgID(c)
	o, err := a.Store.RiskConfig(c.UserContext(), org)
	if err != nil {
		return err
	}
	o = o.Merge(next)
	if err := a.Store.PutRiskConfig(c.UserContext(), org, o, a.Clock.Now()); err != nil {
		return err
	}
	return c.JSON(o.Apply())
}

// actor is the acting user of the request, for the audit trail.
func actor(c *fiber.Ctx) (id, name string) {
	p := identity.FromCtx(c)
	if p == nil {
		return "", SystemUser
	}
	return p.UserID, p.Username
}

// checkRefs answers 422 naming owner_id or model_ids when they name no
// user or model of the organization (another organization's alike).
func (a *API) checkRefs(ctx context.Context, orgID string, f fields) error {
	var v web.Problems
	if f.OwnerID != nil && *f.OwnerID != "" {
		if _, err := a.Store.User(ctx, orgID, *f.OwnerID); errors.Is(err, store.ErrNotFound) {
			v.Add("owner_id", "no user of the organization has this id")
		} else if err != nil {
			return err
		}
	}
	if f.ModelIDs != nil {
		for _, id := range *f.ModelIDs {
			if _, err := a.Store.Model(ctx, orgID, id); errors.Is(err, store.ErrNotFound) {
				v.Add("model_ids", "no model of the organization has the id "+id)
				break
			} else if err != nil {
				return err
			}
		}
	}
	return v.Err()
}

// modelGone is the 422 of a model deleted between the check and the write.
var modelGone = web.Invalid("model_ids", "names a model the organization no longer has")

func (a *API) create(c *fiber.Ctx) error {
	var req createRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	org := identity.OrgID(c)
	cfg, err := a.config(c.UserContext(), org)
	if err != nil {
		return err
	}
	var v web.Problems
	req.check(&v, cfg, true)
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.checkRefs(c.UserContext(), org, req.fields); err != nil {
		return err
	}
	now := a.Clock.Now()
	uid, uname := actor(c)
	e := Entry{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, Status: StatusIdentified, CreatedBy: uid,
		CreatedAt: now, UpdatedAt: now}
	req.apply(&e)
	score(&e, cfg.Thresholds)
	schedule(&e, now)
	ev := CreateEvent(e, uid, uname)
	if _, err := a.Store.CreateRiskEntry(c.UserContext(), e, ev); errors.Is(err, store.ErrNotFound) {
		return modelGone
	} else if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/risk-register/"+e.ID)
	return c.Status(http.StatusCreated).JSON(newView(e))
}

// CreateEvent is the audit trail's first event of e, written by the user
// uid (username uname; "" and SystemUser for drafting).
func CreateEvent(e Entry, uid, uname string) Event {
	how := "created"
	if e.SourceType != "" {
		how = "drafted from " + strings.ReplaceAll(e.SourceType, "_", " ") + " " + e.SourceID
	}
	return Event{ID: uuid.Must(uuid.NewV7()).String(), OrgID: e.OrgID, EntryID: e.ID, Action: ActionCreate,
		Description: "risk entry " + how, UserID: uid, Username: uname, CreatedAt: e.CreatedAt,
		Details: map[string]any{"title": e.Title, "category": e.Category, "likelihood": e.Likelihood, "impact": e.Impact,
			"risk_score": e.Score, "severity": e.Severity, "status": string(e.Status)}}
}

func (a *API) entryID(c *fiber.Ctx) (string, error) { return web.PathParam(c, "entry_id") }

// notFound turns the store's ErrNotFound into the entry's 404.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("risk entry")
	}
	return err
}

func (a *API) get(c *fiber.Ctx) error {
	id, err := a.entryID(c)
	if err != nil {
		return err
	}
	e, err := a.Store.RiskEntry(c.UserContext(), identity.OrgID(c), id)
	if err != nil {
		return notFound(err)
	}
	return c.JSON(newView(e))
}

// update applies a PATCH under the entry's lock: the edits, then the
// status move, each written to the audit trail.
func (a *API) update(c *fiber.Ctx) error {
	id, err := a.entryID(c)
	if err != nil {
		return err
	}
	var req updateRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if err := req.nulls(c.Body()); err != nil {
		return err
	}
	org := identity.OrgID(c)
	// The entry must exist before the body is judged against it, so that
	// another organization's id answers 404 whatever the body.
	if _, err := a.Store.RiskEntry(c.UserContext(), org, id); err != nil {
		return notFound(err)
	}
	cfg, err := a.config(c.UserContext(), org)
	if err != nil {
		return err
	}
	if err := req.validate(cfg); err != nil {
		return err
	}
	if err := a.checkRefs(c.UserContext(), org, req.fields); err != nil {
		return err
	}
	uid, uname := actor(c)
	now := a.Clock.Now()
	e, err := a.Store.UpdateRiskEntry(c.UserContext(), org, id, func(e *Entry) ([]Event, error) {
		return req.change(e, cfg.Thresholds, now, uid, uname)
	})
	if err != nil {
		var we *web.Error
		if errors.As(err, &we) {
			return err
		}
		if errors.Is(err, store.ErrNotFound) {
			if _, gone := a.Store.RiskEntry(c.UserContext(), org, id); gone == nil {
				return modelGone
			}
		}
		return notFound(err)
	}
	return c.JSON(newView(e))
}

// change applies r to e at now for the user uid/uname and returns the
// audit trail's events: one per edited field, then the status move. A
// move the workflow forbids is a 422 naming status.
func (r updateRequest) change(e *Entry, t Thresholds, now time.Time, uid, uname string) ([]Event, error) {
	var events []Event
	ev := func(action, desc string, details map[string]any) {
		events = append(events, Event{ID: uuid.Must(uuid.NewV7()).String(), OrgID: e.OrgID, EntryID: e.ID, Action: action,
			Description: desc, Details: details, UserID: uid, Username: uname, CreatedAt: now})
	}
	l, i := e.Likelihood, e.Impact
	for _, ch := range r.apply(e) {
		ev(ActionUpdate, strings.ReplaceAll(ch.field, "_", " ")+" changed", map[string]any{"field": ch.field, "from": ch.from, "to": ch.to})
	}
	if e.Likelihood != l || e.Impact != i {
		score(e, t)
	}
	if r.Status != nil && Status(*r.Status) != e.Status {
		to := Status(*r.Status)
		if !e.Status.CanMove(to) {
			return nil, web.Invalid("status", "cannot move from "+string(e.Status)+" to "+string(to)+"; allowed: "+
				strings.Join(names(e.Status.Allowed()), ", "))
		}
		ev(ActionStatusChange, "status changed from "+string(e.Status)+" to "+string(to),
			map[string]any{"from": string(e.Status), "to": string(to), "reason": *r.StatusReason})
		e.Status = to
		e.ClosedAt = nil
		if to == StatusClosed {
			e.ClosedAt = &now
		}
	}
	if len(events) > 0 {
		e.UpdatedAt = now
		schedule(e, now)
	}
	return events, nil
}

func names(ss []Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

func (a *API) history(c *fiber.Ctx) error {
	id, err := a.entryID(c)
	if err != nil {
		return err
	}
	evs, err := a.Store.RiskHistory(c.UserContext(), identity.OrgID(c), id)
	if err != nil {
		return notFound(err)
	}
	h := history{EntryID: id, Events: make([]eventView, 0, len(evs))}
	for _, e := range evs {
		d := e.Details
		if d == nil {
			d = map[string]any{}
		}
		h.Events = append(h.Events, eventView{ID: e.ID, Action: e.Action, Description: e.Description, Details: d,
			UserID: nullable(e.UserID), Username: e.Username, CreatedAt: e.CreatedAt})
	}
	return c.JSON(h)
}

// list answers GET /risk-register: newest first, filtered by category,
// model_id, owner_id, status and severity, paged with page and page_size
// (default 50, at most 1000).
func (a *API) list(c *fiber.Ctx) error {
	page, size, err := listPage(c)
	if err != nil {
		return err
	}
	var v web.Problems
	f := Filter{Category: c.Query("category"), ModelID: c.Query("model_id"), OwnerID: c.Query("owner_id"),
		Limit: size, Offset: (page - 1) * size}
	f.Status = Status(v.EnumQuery(c, "status", "", statusNames()...))
	f.Severity = v.EnumQuery(c, "severity", "", Severities...)
	for _, name := range []string{"category", "model_id", "owner_id"} {
		if q := web.Query(c, name); q != nil && *q == "" {
			v.Add(name, "must not be empty: leave it out to keep every value")
		}
		v.Text(name, c.Query(name))
	}
	if err := v.Err(); err != nil {
		return err
	}
	org := identity.OrgID(c)
	// Another organization's model or user answers as a missing one does,
	// not with an empty page.
	if f.ModelID != "" {
		if _, err := registry.Find(c.UserContext(), a.Store, org, f.ModelID); err != nil {
			return err
		}
	}
	if f.OwnerID != "" {
		if _, err := a.Store.User(c.UserContext(), org, f.OwnerID); errors.Is(err, store.ErrNotFound) {
			return web.NotFound("user")
		} else if err != nil {
			return err
		}
	}
	es, total, err := a.Store.RiskEntries(c.UserContext(), org, f)
	if err != nil {
		return err
	}
	return c.JSON(entryPage{Page: web.NewPage(total, page, size), Entries: newViews(es)})
}

// entryPage is the list's pagination envelope.
type entryPage struct {
	web.Page
	Entries []view `json:"risk_entries"`
}

// portfolio answers GET /risk-register/portfolio: the open entries'
// heat map and counts, and the top `limit` (default 10, at most 100).
//
// The heat map and the counts come from per-cell counts of open entries
// that every write keeps in its own transaction; the top risks are the
// open entries ordered by severity, score, then newest.
func (a *API) portfolio(c *fiber.Ctx) error {
	limit, err := web.IntQuery(c, "limit", 10, 1, 100)
	if err != nil {
		return err
	}
	org := identity.OrgID(c)
	counts, err := a.Store.RiskCounts(c.UserContext(), org)
	if err != nil {
		return err
	}
	top, err := a.Store.TopRisks(c.UserContext(), org, limit)
	if err != nil {
		return err
	}
	return c.JSON(newPortfolio(counts, top))
}

// listPage reads the list's page and size: page and page_size, or limit
// (1 to 1000) as page_size's alias, as the spec's other lists name it.
func listPage(c *fiber.Ctx) (page, size int, err error) {
	page, size, err = web.PageQuery(c, 50, 1000)
	if err != nil || web.Query(c, "limit") == nil {
		return page, size, err
	}
	if web.Query(c, "page_size") != nil {
		return 0, 0, web.Invalid("limit", "is page_size's alias: send one of them")
	}
	size, err = web.IntQuery(c, "limit", 50, 1, 1000)
	return page, size, err
}
