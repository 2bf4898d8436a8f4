package pricing

import (
	"context"
	"strings"
	"time"
)

// Unit is what a price counts: US dollars per million tokens.
const Unit = "USD per 1,000,000 tokens"

// AnyProvider is the provider of a price that applies to its model whatever
// the provider a completion names (OpenInference spans often name none).
const AnyProvider = "*"

// Price is what one provider's model costs, in US dollars per million
// tokens. Provider and Model are kept in lower case.
type Price struct {
	Provider         string  `json:"provider"`
	Model            string  `json:"model"`
	InputPerMillion  float64 `json:"input_per_million"`
	OutputPerMillion float64 `json:"output_per_million"`
}

// Cost is the price of in input and out output tokens.
func (p Price) Cost(in, out int64) float64 {
	return (float64(in)*p.InputPerMillion + float64(out)*p.OutputPerMillion) / 1e6
}

// Store keeps each organization's price table.
type Store interface {
	// Prices returns the organization's own prices, by provider and model.
	Prices(ctx context.Context, orgID string) ([]Price, error)
	// PutPrices replaces the organization's prices with ps in one
	// transaction.
	PutPrices(ctx context.Context, orgID string, ps []Price, at time.Time) error
}

// Table finds the price of a provider's model: an organization's own
// prices over the built-in defaults.
type Table struct {
	orgID string
	byKey map[string]Price
}

// NewTable is the defaults overridden by own, entry by entry (same provider
// and model).
func NewTable(own []Price) Table {
	t := Table{byKey: map[string]Price{}}
	for _, ps := range [][]Price{Defaults, own} {
		for _, p := range ps {
			p.Provider, p.Model = strings.ToLower(p.Provider), strings.ToLower(p.Model)
			t.byKey[p.Provider+"\x00"+p.Model] = p
		}
	}
	return t
}

// Lookup returns the price of provider's model. A price applies to its
// model name and to every name that extends it after "-", "@", ":" or "/"
// (gpt-4o's applies to gpt-4o-2024-08-06), the longest such name winning;
// a price of the completion's provider wins over one of AnyProvider.
// Names compare case-insensitively.
func (t Table) Lookup(provider, model string) (Price, bool) {
	provider, model = strings.ToLower(provider), strings.ToLower(model)
	for _, prov := range []string{provider, AnyProvider} {
		name := model
		for {
			if p, ok := t.byKey[prov+"\x00"+name]; ok {
				return p, true
			}
			i := strings.LastIndexAny(name, "-@:/")
			if i <= 0 {
				break
			}
			name = name[:i]
		}
	}
	return Price{}, false
}
