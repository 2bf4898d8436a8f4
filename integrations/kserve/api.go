package kserve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Models finds the model events name, or registers it.
type Models interface {
	registry.Names
}

// appender is the event log's write side.
type appender interface {
	Append(ctx context.Context, recs []eventlog.Record) error
}

// API serves POST /kserve/events, KServe's payload logger's target.
type API struct {
	Pairs  Store
	Models Models
	Log    eventlog.Log
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/kserve/events", Permission: "predictions:write", Bucket: web.BucketPredictions, Handler: a.receive},
	}
}

// received is POST /kserve/events's answer.
type received struct {
	EventID string `json:"event_id"`
	ModelID string `json:"model_id"`
	// Paired tells whether both halves have come: the prediction is
	// logged.
	Paired bool `json:"paired"`
}

func (a *API) receive(c *fiber.Ctx) error {
	e, err := Parse(string(c.Request().Header.ContentType()), func(n string) string { return c.Get(n) }, c.Body())
	if err != nil {
		return web.Invalid("cloudevent", err.Error())
	}
	m, err := a.model(c, e)
	if err != nil {
		return err
	}
	meta, _ := json.Marshal(map[string]string{"source": "kserve", "ce_source": e.Source,
		"inferenceservicename": e.Service, "namespace": e.Namespace, "component": e.Component, "endpoint": e.Endpoint})
	half := Pair{OrgID: m.OrgID, EventID: e.ID, ModelID: m.ID, Metadata: meta, FirstAt: a.Clock.Now()}
	var at *time.Time
	if !e.Time.IsZero() {
		at = &e.Time
	}
	if e.Type == TypeRequest {
		half.Request, half.RequestAt = e.Data, at
	} else {
		half.Response, half.ResponseAt = e.Data, at
	}
	p, err := a.Pairs.PutHalf(c.UserContext(), half)
	if err != nil {
		return err
	}
	if p.Complete() {
		if err := logPairs(c.UserContext(), a.Log, a.Pairs, []Pair{p}, a.Clock.Now()); err != nil {
			return err
		}
	}
	return c.Status(http.StatusAccepted).JSON(received{EventID: e.ID, ModelID: p.ModelID, Paired: p.Complete()})
}

// model is the model an event is logged for: the newest version of the
// model named by the event (Event.ModelName), registered on first sight
// (type classification, version 1, framework kserve) when the caller may
// write models. 409 for an archived model.
func (a *API) model(c *fiber.Ctx, e Event) (registry.Model, error) {
	orgID := identity.OrgID(c)
	p := identity.FromCtx(c)
	now := a.Clock.Now()
	m, err := registry.FindOrRegister(c.UserContext(), a.Models, registry.Model{ID: uuid.Must(uuid.NewV7()).String(),
		OrgID: orgID, Name: e.ModelName(), Version: "1", ModelType: "classification", Framework: "kserve",
		Status: registry.StatusActive, Description: "Registered on its first KServe payload log (" + e.ModelName() + ").",
		OwnerID: p.UserID, Metadata: map[string]any{"registered_by": "kserve"}, MonitoringEnabled: true,
		CreatedAt: now, UpdatedAt: now}, p.Can("models:write"))
	if errors.Is(err, store.ErrNotFound) {
		return m, &web.Error{Status: http.StatusNotFound, Code: web.CodeModelNotFound,
			Message: "no model is named " + e.ModelName() + ": register it under that name, or log with a key that may write models (models:write)"}
	}
	if err != nil {
		return m, err
	}
	return m, archived(m)
}

func archived(m registry.Model) error {
	if m.Status == registry.StatusArchived {
		return web.Conflict("the model is archived: monitoring has stopped; restore it to log again")
	}
	return nil
}

// logPairs appends the pairs' predictions to the log, durably, then
// forgets the pairs. A crash between the two logs a pair again later,
// which its prediction_id makes harmless.
func logPairs(ctx context.Context, log appender, pairs Store, ps []Pair, now time.Time) error {
	recs := make([]eventlog.Record, 0, len(ps))
	for _, p := range ps {
		rec, err := p.Record(now)
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if err := log.Append(ctx, recs); err != nil {
		if errors.Is(err, eventlog.ErrUnavailable) {
			return web.Unavailable("the event log is unavailable: the event is kept and its prediction logged "+
				"once the log is back or the event is sent again", 5*time.Second, err)
		}
		return err
	}
	for _, p := range ps {
		if err := pairs.DeletePair(ctx, p.OrgID, p.EventID); err != nil {
			return err
		}
	}
	return nil
}
