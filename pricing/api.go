package pricing

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
)

// MaxPrices bounds an organization's own price table.
const MaxPrices = 1000

// maxPrice bounds one price per million tokens, so that costs stay finite.
const maxPrice = 1e6

// API serves GET and PUT /llm/prices and computes the cost of completions
// logged without one (Cost).
type API struct {
	Store Store
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Tables keeps each organization's table for a while, so that ingest
	// reads the store at most once per TTL; a PUT on this replica forgets
	// it at once, other replicas see it within the TTL. Nil reads the store
	// every time.
	Tables *cache.Cache[string, Table]
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/llm/prices", Permission: "llm:read", Handler: a.get},
		{Method: fiber.MethodPut, Path: "/llm/prices", Permission: "llm:write", Handler: a.put},
	}
}

// table is GET /llm/prices's answer: the organization's own prices, the
// built-in defaults under them, and their unit.
type table struct {
	Unit     string  `json:"unit"`
	Prices   []Price `json:"prices"`
	Defaults []Price `json:"defaults"`
}

func (a *API) answer(c *fiber.Ctx, own []Price) error {
	if own == nil {
		own = []Price{}
	}
	return c.JSON(table{Unit: Unit, Prices: own, Defaults: Defaults})
}

func (a *API) get(c *fiber.Ctx) error {
	own, err := a.Store.Prices(c.UserContext(), identity.OrgID(c))
	if err != nil {
		return err
	}
	return a.answer(c, own)
}

// putRequest is PUT /llm/prices's body: the organization's whole table.
type putRequest struct {
	Prices *[]priceInput `json:"prices"`
}

type priceInput struct {
	Provider         string   `json:"provider"`
	Model            string   `json:"model"`
	InputPerMillion  *float64 `json:"input_per_million"`
	OutputPerMillion *float64 `json:"output_per_million"`
}

func (r putRequest) validate() ([]Price, error) {
	var v web.Problems
	if r.Prices == nil {
		v.Add("prices", "is required: an array (empty to keep only the defaults)")
		return nil, v.Err()
	}
	if len(*r.Prices) > MaxPrices {
		v.Add("prices", fmt.Sprintf("at most %d prices", MaxPrices))
		return nil, v.Err()
	}
	seen := map[string]int{}
	out := make([]Price, 0, len(*r.Prices))
	for i, p := range *r.Prices {
		f := func(name string) string { return fmt.Sprintf("prices[%d].%s", i, name) }
		v.Required(f("provider"), p.Provider)
		v.MaxLen(f("provider"), p.Provider, 100)
		v.Text(f("provider"), p.Provider)
		v.Required(f("model"), p.Model)
		v.MaxLen(f("model"), p.Model, 200)
		v.Text(f("model"), p.Model)
		for _, x := range []struct {
			name string
			v    *float64
		}{{"input_per_million", p.InputPerMillion}, {"output_per_million", p.OutputPerMillion}} {
			switch {
			case x.v == nil:
				v.Add(f(x.name), "is required")
			case math.IsNaN(*x.v) || *x.v < 0 || *x.v > maxPrice:
				v.Add(f(x.name), "must be between 0 and 1000000 (US dollars per million tokens)")
			}
		}
		key := strings.ToLower(p.Provider) + "\x00" + strings.ToLower(p.Model)
		if j, ok := seen[key]; ok && p.Provider != "" && p.Model != "" {
			v.Add(f("model"), fmt.Sprintf("repeats prices[%d]'s provider and model", j))
		}
		seen[key] = i
		if p.InputPerMillion != nil && p.OutputPerMillion != nil {
			out = append(out, Price{Provider: strings.ToLower(p.Provider), Model: strings.ToLower(p.Model),
				InputPerMillion: *p.InputPerMillion, OutputPerMillion: *p.OutputPerMillion})
		}
	}
	return out, v.Err()
}

func (a *API) put(c *fiber.Ctx) error {
	var req putRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	ps, err := req.validate()
	if err != nil {
		return err
	}
	orgID := identity.OrgID(c)
	if err := a.Store.PutPrices(c.UserContext(), orgID, ps, a.Clock.Now()); err != nil {
		return err
	}
	a.Tables.Forget(func(t Table) bool { return t.orgID == orgID })
	return a.answer(c, ps)
}

// Cost is the cost of in input and out output tokens of provider's model
// by the organization's table, and whether the table prices that model
// (false: cost 0).
func (a *API) Cost(ctx context.Context, orgID, provider, model string, in, out int64) (float64, bool, error) {
	t, err := a.Tables.Get(orgID, a.Clock.Now(), func() (Table, error) {
		own, err := a.Store.Prices(ctx, orgID)
		t := NewTable(own)
		t.orgID = orgID
		return t, err
	})
	if err != nil {
		return 0, false, err
	}
	p, ok := t.Lookup(provider, model)
	if !ok {
		return 0, false, nil
	}
	return p.Cost(in, out), true, nil
}
