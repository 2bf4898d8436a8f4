package alerts

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// API serves /alerts: the metric catalogue, rules, their dry run and the
// instances with their moves.
type API struct {
	Store Store
	// Readings reads the rollups a dry run observes; without it a dry run
	// answers 503. Findings reads drift reports (drift_score).
	Readings Readings
	Findings Findings
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Targets checks webhook and Slack targets when a rule is stored;
	// nil refuses every non-public address.
	Targets *outbound.Guard
	// WebhookKeys returns an organization's webhook signing secrets and
	// RotateWebhookSecret replaces the current one (store.ErrConflict
	// when another rotation won); Deliveries reads the delivery log.
	// Without them those routes answer 503.
	WebhookKeys         func(ctx context.Context, orgID string) (WebhookKeys, error)
	RotateWebhookSecret func(ctx context.Context, orgID string, overlap time.Duration) (WebhookKeys, error)
	Deliveries          Deliveries
	// Statistics sums alerts; without it GET /alerts/statistics answers
	// 503.
	Statistics Statistics
	// Box seals secret channel targets (SecretChannel) at rest; without
	// it they are stored in clear (tests). Responses mask them either way.
	Box *secretbox.Keyring
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/alerts/metrics", Permission: "alerts:read", Handler: a.metrics},
		{Method: fiber.MethodPost, Path: "/alerts/rules", Permission: "alerts:write", Handler: a.createRule},
		{Method: fiber.MethodGet, Path: "/alerts/rules", Permission: "alerts:read", Handler: a.listRules},
		{Method: fiber.MethodGet, Path: "/alerts/rules/:rule_id", Permission: "alerts:read", Handler: a.getRule},
		{Method: fiber.MethodPatch, Path: "/alerts/rules/:rule_id", Permission: "alerts:write", Handler: a.updateRule},
		{Method: fiber.MethodDelete, Path: "/alerts/rules/:rule_id", Permission: "alerts:write", Handler: a.deleteRule},
		{Method: fiber.MethodPost, Path: "/alerts/rules/:rule_id/evaluate", Permission: "alerts:read", Handler: a.evaluate},
		{Method: fiber.MethodGet, Path: "/alerts/instances", Permission: "alerts:read", Handler: a.listInstances},
		{Method: fiber.MethodGet, Path: "/alerts/instances/:alert_id", Permission: "alerts:read", Handler: a.getInstance},
		{Method: fiber.MethodPost, Path: "/alerts/instances/:alert_id/acknowledge", Permission: "alerts:write", Handler: a.acknowledge},
		{Method: fiber.MethodPost, Path: "/alerts/instances/:alert_id/resolve", Permission: "alerts:write", Handler: a.resolve},
		{Method: fiber.MethodPost, Path: "/alerts/instances/:alert_id/snooze", Permission: "alerts:write", Handler: a.snooze},
		{Method: fiber.MethodGet, Path: "/alerts/instances/:alert_id/deliveries", Permission: "alerts:read", Handler: a.deliveries},
		{Method: fiber.MethodGet, Path: "/alerts/webhook-secret", Permission: "alerts:write", Handler: a.webhookSecret},
		{Method: fiber.MethodPost, Path: "/alerts/webhook-secret/rotate", Permission: "alerts:write", Handler: a.rotateWebhookSecret},
		{Method: fiber.MethodGet, Path: "/alerts/statistics", Permission: "alerts:read", Handler: a.statistics},
	}
}

// metrics answers GET /alerts/metrics: the catalogue of metric names.
func (a *API) metrics(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"metrics": Catalogue, "operators": Operators})
}

// ruleRequest is the body of POST /alerts/rules and PATCH
// /alerts/rules/{rule_id}: every field optional in a PATCH, which changes
// the fields it names.
type ruleRequest struct {
	Name            *string             `json:"name"`
	Description     *string             `json:"description"`
	AlertType       *string             `json:"alert_type"`
	Severity        *string             `json:"severity"`
	ModelID         *string             `json:"model_id"`
	Conditions      *[]conditionRequest `json:"conditions"`
	Channels        *[]Channel          `json:"notification_channels"`
	Enabled         *bool               `json:"enabled"`
	CooldownMinutes *web.Int            `json:"cooldown_minutes"`
}

// conditionRequest is one condition as sent: window_minutes defaults to
// DefaultWindowMinutes.
type conditionRequest struct {
	MetricName    string   `json:"metric_name"`
	Operator      string   `json:"operator"`
	Threshold     *float64 `json:"threshold"`
	WindowMinutes *web.Int `json:"window_minutes"`
}

// apply sets r's fields from the request.
func (q ruleRequest) apply(r *Rule) error {
	set(&r.Name, q.Name)
	set(&r.Description, q.Description)
	set(&r.AlertType, q.AlertType)
	set(&r.Severity, q.Severity)
	set(&r.ModelID, q.ModelID)
	set(&r.Enabled, q.Enabled)
	if q.CooldownMinutes != nil {
		r.CooldownMinutes = int(*q.CooldownMinutes)
	}
	if q.Channels != nil {
		r.Channels = *q.Channels
	}
	if q.Conditions != nil {
		var v web.Problems
		r.Conditions = make([]Condition, 0, len(*q.Conditions))
		for i, cr := range *q.Conditions {
			c := Condition{MetricName: cr.MetricName, Operator: cr.Operator, WindowMinutes: DefaultWindowMinutes}
			if cr.Threshold == nil {
				v.Add("conditions["+itoa(i)+"].threshold", "is required")
			} else {
				c.Threshold = *cr.Threshold
			}
			if cr.WindowMinutes != nil {
				c.WindowMinutes = int(*cr.WindowMinutes)
			}
			r.Conditions = append(r.Conditions, c)
		}
		if err := v.Err(); err != nil {
			return err
		}
	}
	return r.validate()
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// createRule answers POST /alerts/rules: 201 with the rule; a model_id the
// organization does not have answers 404 MODEL_NOT_FOUND.
func (a *API) createRule(c *fiber.Ctx) error {
	var q ruleRequest
	if err := web.Decode(c, &q); err != nil {
		return err
	}
	now := a.Clock.Now()
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	r := Rule{ID: id.String(), OrgID: identity.OrgID(c), Enabled: true, CooldownMinutes: DefaultCooldownMinutes,
		CreatedBy: userID(c), CreatedAt: now, UpdatedAt: now}
	if err := q.apply(&r); err != nil {
		return err
	}
	if err := a.checkTargets(r); err != nil {
		return err
	}
	if r.Channels, err = a.sealChannels(r.OrgID, r.Channels); err != nil {
		return err
	}
	if err := a.Store.CreateAlertRule(c.UserContext(), r); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	} else if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/alerts/rules/"+r.ID)
	return c.Status(http.StatusCreated).JSON(a.view(r))
}

// rule loads the caller's rule named by the path: 404 for another
// organization's like a missing one.
func (a *API) rule(c *fiber.Ctx) (Rule, error) {
	id, err := web.PathParam(c, "rule_id")
	if err != nil {
		return Rule{}, err
	}
	r, err := a.Store.AlertRule(c.UserContext(), identity.OrgID(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return r, web.NotFound("alert rule")
	}
	return r, err
}

// getRule answers GET /alerts/rules/{rule_id}.
func (a *API) getRule(c *fiber.Ctx) error {
	r, err := a.rule(c)
	if err != nil {
		return err
	}
	return c.JSON(a.view(r))
}

// updateRule answers PATCH /alerts/rules/{rule_id}: the named fields
// change and the result is validated whole; model_id "" makes the rule
// watch every model (null, like an absent field, changes nothing).
func (a *API) updateRule(c *fiber.Ctx) error {
	r, err := a.rule(c)
	if err != nil {
		return err
	}
	if p := r.managedProblem(); p != "" { // managed_by never changes: no race
		return web.Conflict(p)
	}
	var q ruleRequest
	if err := web.Decode(c, &q); err != nil {
		return err
	}
	if q.Channels != nil { // a secret sent back masked keeps the stored one
		unmask(*q.Channels, a.openChannels(r.OrgID, r.Channels))
	}
	// Validate before the transaction so that a 422 changes nothing.
	check := r
	check.Channels = a.openChannels(r.OrgID, r.Channels)
	if err := q.apply(&check); err != nil {
		return err
	}
	if err := a.checkTargets(check); err != nil {
		return err
	}
	now := a.Clock.Now()
	out, err := a.Store.UpdateAlertRule(c.UserContext(), r.OrgID, r.ID, func(cur *Rule) error {
		cur.Channels = a.openChannels(cur.OrgID, cur.Channels)
		if err := q.apply(cur); err != nil {
			return err
		}
		var err error
		if cur.Channels, err = a.sealChannels(cur.OrgID, cur.Channels); err != nil {
			return err
		}
		cur.UpdatedAt = now
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound) && check.ModelID != "" && check.ModelID != r.ModelID:
		return web.NotFound("model")
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("alert rule")
	case err != nil:
		return err
	}
	return c.JSON(a.view(out))
}

// deleteRule answers DELETE /alerts/rules/{rule_id}: 204; its instances
// that are not resolved are resolved and kept. A managed rule answers 409
// naming what manages it.
func (a *API) deleteRule(c *fiber.Ctx) error {
	r, err := a.rule(c)
	if err != nil {
		return err
	}
	if p := r.managedProblem(); p != "" {
		return web.Conflict(p)
	}
	err = a.Store.DeleteAlertRule(c.UserContext(), r.OrgID, r.ID, userID(c), a.Clock.Now())
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("alert rule")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// listRules answers GET /alerts/rules: newest first, filtered by model_id
// and enabled, paged with page and page_size (default 50, at most 100).
func (a *API) listRules(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 100)
	if err != nil {
		return err
	}
	var v web.Problems
	v.IDQuery(c, "model_id")
	f := RuleFilter{ModelID: c.Query("model_id"), Limit: size, Offset: (page - 1) * size}
	switch v.EnumQuery(c, "enabled", "", "true", "false") {
	case "true":
		f.Enabled = ptr(true)
	case "false":
		f.Enabled = ptr(false)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.knownModel(c, f.ModelID); err != nil {
		return err
	}
	rules, total, err := a.Store.AlertRules(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	views := make([]ruleView, 0, len(rules))
	for _, r := range rules {
		views = append(views, a.view(r))
	}
	return c.JSON(rulePage{Page: web.NewPage(total, page, size), Rules: views})
}

// knownModel answers 404 MODEL_NOT_FOUND for a model filter naming a
// model the organization does not have, never an empty page.
func (a *API) knownModel(c *fiber.Ctx, id string) error {
	if id == "" {
		return nil
	}
	_, err := registry.Find(c.UserContext(), a.Store, identity.OrgID(c), id)
	return err
}

func ptr[T any](v T) *T { return &v }

// userID is the caller's user: the user of a login token or the creator
// of an API key.
func userID(c *fiber.Ctx) string {
	if p := identity.FromCtx(c); p != nil {
		return p.UserID
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }

// ruleView is a rule as answered.
type ruleView struct {
	ID              string      `json:"id"`
	Name            string      `json:"name"`
	Description     string      `json:"description"`
	AlertType       string      `json:"alert_type"`
	Severity        string      `json:"severity"`
	ModelID         *string     `json:"model_id"`
	Conditions      []Condition `json:"conditions"`
	Channels        []Channel   `json:"notification_channels"`
	Enabled         bool        `json:"enabled"`
	CooldownMinutes int         `json:"cooldown_minutes"`
	// ManagedBy names the resource that manages the rule (null for a
	// rule users define): such a rule is read-only here.
	ManagedBy *string   `json:"managed_by"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func newRuleView(r Rule) ruleView {
	v := ruleView{ID: r.ID, Name: r.Name, Description: r.Description, AlertType: r.AlertType, Severity: r.Severity,
		Conditions: r.Conditions, Channels: r.Channels, Enabled: r.Enabled, CooldownMinutes: r.CooldownMinutes,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if v.Conditions == nil {
		v.Conditions = []Condition{}
	}
	if v.Channels == nil {
		v.Channels = []Channel{}
	}
	if r.ModelID != "" {
		v.ModelID = &r.ModelID
	}
	if r.ManagedBy != "" {
		v.ManagedBy = &r.ManagedBy
	}
	return v
}

// rulePage is the rule list's pagination envelope.
type rulePage struct {
	web.Page
	Rules []ruleView `json:"rules"`
}
