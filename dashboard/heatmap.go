package dashboard

import (
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/identity"
)

// Band is a likelihood band of the heat map: a model that raised Min to
// Max alerts in the window.
type Band struct {
	Name     string
	Min, Max int64
}

// Likelihoods are the heat map's bands, least likely first.
var Likelihoods = []Band{{"rare", 1, 1}, {"occasional", 2, 3}, {"likely", 4, 9}, {"frequent", 10, 1 << 62}}

// HeatWindow is the window of the heat map.
const HeatWindow = 30 * 24 * time.Hour

// heatModel is one model in a cell.
type heatModel struct {
	ModelID    string `json:"model_id"`
	Alerts     int64  `json:"alerts"`
	Unresolved int64  `json:"unresolved"`
}

// heatCell is one cell: a likelihood band by an impact (severity).
type heatCell struct {
	Likelihood string      `json:"likelihood"`
	Impact     string      `json:"impact"`
	Models     []heatModel `json:"models"`
}

// heatMap answers GET /executive-dashboard/risk-register: every cell of
// the grid, likelihood by impact, with the models in it.
func (a *API) heatMap(c *fiber.Ctx) error {
	now := a.Clock.Now().UTC()
	from := now.Add(-HeatWindow)
	list, _, err := a.Store.AlertInstances(c.UserContext(), identity.OrgID(c), alerts.InstanceFilter{From: from, To: now.Add(time.Minute)})
	if err != nil {
		return err
	}
	type acc struct {
		alerts, unresolved int64
		impact             int
	}
	byModel := map[string]*acc{}
	for _, in := range list {
		m := byModel[in.ModelID]
		if m == nil {
			m = &acc{}
			byModel[in.ModelID] = m
		}
		m.alerts++
		if in.Status != alerts.StatusResolved {
			m.unresolved++
		}
		m.impact = max(m.impact, slices.Index(alerts.Severities, in.Severity))
	}
	cells := make([]heatCell, 0, len(Likelihoods)*len(alerts.Severities))
	for _, l := range Likelihoods {
		for _, sev := range alerts.Severities {
			cells = append(cells, heatCell{Likelihood: l.Name, Impact: sev, Models: []heatModel{}})
		}
	}
	for id, m := range byModel {
		li := slices.IndexFunc(Likelihoods, func(l Band) bool { return m.alerts >= l.Min && m.alerts <= l.Max })
		cell := &cells[li*len(alerts.Severities)+max(m.impact, 0)]
		cell.Models = append(cell.Models, heatModel{ModelID: id, Alerts: m.alerts, Unresolved: m.unresolved})
	}
	for i := range cells {
		slices.SortFunc(cells[i].Models, func(x, y heatModel) int {
			if x.Alerts != y.Alerts {
				return int(y.Alerts - x.Alerts)
			}
			if x.ModelID < y.ModelID {
				return -1
			}
			return 1
		})
	}
	likelihoods := make([]string, len(Likelihoods))
	for i, l := range Likelihoods {
		likelihoods[i] = l.Name
	}
	return c.JSON(fiber.Map{"window": fiber.Map{"start": from, "end": now}, "likelihoods": likelihoods, "impacts": alerts.Severities,
		"cells": cells, "models": len(byModel),
		"note": "A live view computed from alert data; not the risk register, which has owners, workflow and history."})
}
