package registry

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// updateRequest holds the fields a partial update accepts, and no others:
// any other field answers 422 naming it.
type updateRequest struct {
	Description        *string         `json:"description"`
	Status             *string         `json:"status"`
	Features           *web.Strings    `json:"features"`
	BaselineMetrics    *web.Numbers    `json:"baseline_metrics"`
	TargetVariable     *string         `json:"target_variable"`
	ModelFramework     *string         `json:"model_framework"`
	FairnessAttributes *web.Strings    `json:"fairness_attributes"`
	ProtectedGroups    *map[string]any `json:"protected_groups"`
	Tags               *[]string       `json:"tags"`
}

func (r updateRequest) validate() error {
	var v web.Problems
	if r.Description != nil {
		v.MaxLen("description", *r.Description, 10000)
	}
	if r.Status != nil {
		v.Required("status", *r.Status)
		v.OneOf("status", strings.ToLower(*r.Status), Statuses...)
	}
	if r.ModelFramework != nil {
		v.MaxLen("model_framework", *r.ModelFramework, 100)
	}
	if r.TargetVariable != nil {
		v.MaxLen("target_variable", *r.TargetVariable, 255)
	}
	if r.Tags != nil {
		validateTags(&v, *r.Tags)
	}
	if r.BaselineMetrics != nil {
		validateMetrics(&v, "baseline_metrics", *r.BaselineMetrics)
	}
	return v.Err()
}

// validateMetrics checks metric names; JSON cannot carry NaN or infinity,
// so the numbers are finite already.
func validateMetrics(v *web.Problems, field string, m map[string]float64) {
	for name := range m {
		if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > 100 {
			v.Add(field, "metric names must be 1-100 characters")
		}
	}
}

func (a *API) update(c *fiber.Ctx) error {
	var req updateRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	return a.change(c, func(m *Model, now time.Time) error {
		setIf(&m.Description, req.Description)
		setIf(&m.Features, (*[]string)(req.Features))
		setIf(&m.BaselineMetrics, (*map[string]float64)(req.BaselineMetrics))
		setIf(&m.TargetVariable, req.TargetVariable)
		setIf(&m.Framework, req.ModelFramework)
		setIf(&m.FairnessAttributes, (*[]string)(req.FairnessAttributes))
		setIf(&m.ProtectedGroups, req.ProtectedGroups)
		setIf(&m.Tags, req.Tags)
		if req.Status != nil {
			transition(m, strings.ToLower(*req.Status), now)
		}
		return nil
	})
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// change applies fn to the caller's model in one transaction and answers
// with the result.
func (a *API) change(c *fiber.Ctx, fn func(m *Model, now time.Time) error) error {
	if _, err := a.load(c); err != nil {
		return err
	}
	now := a.Clock.Now()
	m, err := a.Store.UpdateModel(c.UserContext(), identity.OrgID(c), c.Params("model_id"), func(m *Model) error {
		if err := fn(m, now); err != nil {
			return err
		}
		m.UpdatedAt = now
		normalize(m)
		return nil
	})
	if err != nil {
		return err
	}
	return a.answer(c, m)
}

// transition moves m to status. Entering archived is archiving (monitoring
// stops, the previous status is kept for restore); leaving it is restoring.
func transition(m *Model, status string, now time.Time) {
	switch {
	case status == m.Status:
	case status == StatusArchived:
		m.StatusBeforeArchive = m.Status
		m.ArchivedAt = &now
		m.MonitoringEnabled = false
	case m.Status == StatusArchived:
		m.StatusBeforeArchive = ""
		m.ArchivedAt = nil
		m.MonitoringEnabled = true
	}
	m.Status = status
}

func (a *API) setStatus(c *fiber.Ctx) error {
	var req struct {
		Status string `json:"status"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	if err := (updateRequest{Status: &req.Status}).validate(); err != nil {
		return err
	}
	return a.change(c, func(m *Model, now time.Time) error {
		transition(m, strings.ToLower(req.Status), now)
		return nil
	})
}

// archive soft-deletes: the data stays, monitoring stops.
func (a *API) archive(c *fiber.Ctx) error {
	return a.change(c, func(m *Model, now time.Time) error {
		if m.Status == StatusArchived {
			return web.Conflict("model is archived already")
		}
		transition(m, StatusArchived, now)
		return nil
	})
}

// restore returns an archived model to the status it had before.
func (a *API) restore(c *fiber.Ctx) error {
	return a.change(c, func(m *Model, now time.Time) error {
		if m.Status != StatusArchived {
			return web.Conflict("model is not archived")
		}
		to := m.StatusBeforeArchive
		if to == "" || to == StatusArchived {
			to = StatusActive
		}
		transition(m, to, now)
		return nil
	})
}

// setBaseline replaces the model's baseline metrics.
func (a *API) setBaseline(c *fiber.Ctx) error {
	var req struct {
		BaselineMetrics web.Numbers `json:"baseline_metrics"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	if req.BaselineMetrics == nil {
		v.Add("baseline_metrics", "is required")
	}
	validateMetrics(&v, "baseline_metrics", req.BaselineMetrics)
	if err := v.Err(); err != nil {
		return err
	}
	return a.change(c, func(m *Model, _ time.Time) error {
		m.BaselineMetrics = req.BaselineMetrics
		return nil
	})
}
