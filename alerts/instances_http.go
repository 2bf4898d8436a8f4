package alerts

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// listInstances answers GET /alerts/instances: newest trigger first,
// filtered by status, severity, model_id, rule_id and triggered_at in
// [start_time, end_time), paged with page and page_size (default 50, at
// most 100). A model_id or rule_id the organization does not have answers
// 404 like a missing one, never an empty page.
func (a *API) listInstances(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 100)
	if err != nil {
		return err
	}
	var v web.Problems
	statuses := make([]string, len(Statuses))
	for i, s := range Statuses {
		statuses[i] = string(s)
	}
	f := InstanceFilter{ModelID: c.Query("model_id"), RuleID: c.Query("rule_id"), Limit: size, Offset: (page - 1) * size}
	f.Status = Status(v.EnumQuery(c, "status", "", statuses...))
	f.Severity = v.EnumQuery(c, "severity", "", Severities...)
	v.IDQuery(c, "model_id")
	v.IDQuery(c, "rule_id")
	f.From = v.Time("start_time", web.Query(c, "start_time"))
	f.To = v.Time("end_time", web.Query(c, "end_time"))
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		v.Add("end_time", "must be after start_time")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.knownModel(c, f.ModelID); err != nil {
		return err
	}
	if f.RuleID != "" {
		if _, err := a.Store.AlertRule(c.UserContext(), identity.OrgID(c), f.RuleID); errors.Is(err, store.ErrNotFound) {
			return web.NotFound("alert rule")
		} else if err != nil {
			return err
		}
	}
	list, total, err := a.Store.AlertInstances(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	views := make([]instanceView, 0, len(list))
	for _, in := range list {
		views = append(views, newInstanceView(in))
	}
	return c.JSON(instancePage{Page: web.NewPage(total, page, size), Alerts: views})
}

// getInstance answers GET /alerts/instances/{alert_id}.
func (a *API) getInstance(c *fiber.Ctx) error {
	id, err := web.PathParam(c, "alert_id")
	if err != nil {
		return err
	}
	in, err := a.Store.AlertInstance(c.UserContext(), identity.OrgID(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("alert")
	} else if err != nil {
		return err
	}
	return c.JSON(newInstanceView(in))
}

// moveRequest is the optional body of acknowledge and resolve.
type moveRequest struct {
	Note *string `json:"note"`
}

// snoozeRequest is the body of snooze: until is required and in the
// future, at most MaxSnooze ahead.
type snoozeRequest struct {
	Until *string `json:"until"`
	Note  *string `json:"note"`
}

// MaxSnooze is the longest snooze: 30 days.
const MaxSnooze = 30 * 24 * time.Hour

func (a *API) acknowledge(c *fiber.Ctx) error { return a.move(c, ActionAcknowledge) }

func (a *API) resolve(c *fiber.Ctx) error { return a.move(c, ActionResolve) }

func (a *API) snooze(c *fiber.Ctx) error { return a.move(c, ActionSnooze) }

// move answers the three moves: 200 with the instance, 409 naming the
// status when the move is illegal (details.status, details.allowed_from).
// acknowledge and resolve take an optional body {note}; snooze needs
// {until}.
func (a *API) move(c *fiber.Ctx, action string) error {
	id, err := web.PathParam(c, "alert_id")
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	var note string
	var until *time.Time
	if action == ActionSnooze {
		var q snoozeRequest
		if err := web.Decode(c, &q); err != nil {
			return err
		}
		var v web.Problems
		if q.Until == nil {
			v.Add("until", "is required")
		}
		t := v.Time("until", q.Until)
		if q.Until != nil && !t.IsZero() && (!t.After(now) || t.Sub(now) > MaxSnooze) {
			v.Add("until", "must be in the future, at most 30 days ahead")
		}
		if q.Note != nil {
			v.MaxLen("note", *q.Note, 2000)
			note = *q.Note
		}
		if err := v.Err(); err != nil {
			return err
		}
		until = &t
	} else if len(c.Body()) > 0 {
		var q moveRequest
		if err := web.Decode(c, &q); err != nil {
			return err
		}
		if q.Note != nil {
			var v web.Problems
			v.MaxLen("note", *q.Note, 2000)
			if err := v.Err(); err != nil {
				return err
			}
			note = *q.Note
		}
	}
	in, err := a.Store.UpdateAlertInstance(c.UserContext(), identity.OrgID(c), id, func(in *Instance) error {
		return in.Apply(action, userID(c), now, until, note)
	})
	var illegal *IllegalMove
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("alert")
	case errors.As(err, &illegal):
		e := web.Conflict("cannot " + action + " an alert that is " + string(illegal.Status))
		e.Details = map[string]any{"status": string(illegal.Status), "allowed_from": allowedFrom(action)}
		return e
	case err != nil:
		return err
	}
	return c.JSON(newInstanceView(in))
}

// allowedFrom lists the statuses an action may start from.
func allowedFrom(action string) []string {
	var out []string
	for _, s := range moves[action].from {
		out = append(out, string(s))
	}
	return out
}

// instanceView is an instance as answered.
type instanceView struct {
	ID              string        `json:"id"`
	RuleID          string        `json:"rule_id"`
	RuleName        string        `json:"rule_name"`
	ModelID         string        `json:"model_id"`
	AlertType       string        `json:"alert_type"`
	Severity        string        `json:"severity"`
	Status          Status        `json:"status"`
	Observations    []Observation `json:"observations"`
	Count           int64         `json:"count"`
	WindowEnd       time.Time     `json:"window_end"`
	TriggeredAt     time.Time     `json:"triggered_at"`
	LastTriggeredAt time.Time     `json:"last_triggered_at"`
	AcknowledgedAt  *time.Time    `json:"acknowledged_at"`
	AcknowledgedBy  *string       `json:"acknowledged_by"`
	SnoozedUntil    *time.Time    `json:"snoozed_until"`
	ResolvedAt      *time.Time    `json:"resolved_at"`
	ResolvedBy      *string       `json:"resolved_by"`
	Resolution      *string       `json:"resolution"`
	History         []Move        `json:"history"`
	UpdatedAt       time.Time     `json:"updated_at"`
}

func newInstanceView(in Instance) instanceView {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	v := instanceView{ID: in.ID, RuleID: in.RuleID, RuleName: in.RuleName, ModelID: in.ModelID, AlertType: in.AlertType,
		Severity: in.Severity, Status: in.Status, Observations: in.Observations, Count: in.Count, WindowEnd: in.WindowEnd.UTC(),
		TriggeredAt: in.TriggeredAt.UTC(), LastTriggeredAt: in.LastTriggeredAt.UTC(), AcknowledgedAt: utc(in.AcknowledgedAt),
		AcknowledgedBy: opt(in.AcknowledgedBy), SnoozedUntil: utc(in.SnoozedUntil), ResolvedAt: utc(in.ResolvedAt),
		ResolvedBy: opt(in.ResolvedBy), Resolution: opt(in.Resolution), History: in.History, UpdatedAt: in.UpdatedAt.UTC()}
	if v.Observations == nil {
		v.Observations = []Observation{}
	}
	if v.History == nil {
		v.History = []Move{}
	}
	return v
}

// instancePage is the instance list's pagination envelope.
type instancePage struct {
	web.Page
	Alerts []instanceView `json:"alerts"`
}
