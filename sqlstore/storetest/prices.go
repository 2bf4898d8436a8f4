package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/pricing"
)

var priceTests = []test{
	{"Prices/PutReplaces", testPrices},
}

// testPrices: an organization without prices reads none; a put is read
// back ordered by provider and model; a second put replaces the whole
// table; another organization's table is its own.
func testPrices(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	got, err := s.Prices(ctx(t), a.ID)
	must(t, err, "Prices")
	equal(t, "prices of a new organization", got, []pricing.Price{})
	ps := []pricing.Price{{Provider: "openai", Model: "gpt-4o", InputPerMillion: 2.5, OutputPerMillion: 10},
		{Provider: "*", Model: "llama-3", InputPerMillion: 0.125, OutputPerMillion: 0.5}}
	must(t, s.PutPrices(ctx(t), a.ID, ps, at(1)), "PutPrices")
	got, err = s.Prices(ctx(t), a.ID)
	must(t, err, "Prices")
	equal(t, "stored prices", got, []pricing.Price{ps[1], ps[0]})
	ps2 := []pricing.Price{{Provider: "anthropic", Model: "claude-3-5-haiku", InputPerMillion: 1, OutputPerMillion: 5}}
	must(t, s.PutPrices(ctx(t), a.ID, ps2, at(2)), "PutPrices again")
	got, err = s.Prices(ctx(t), a.ID)
	must(t, err, "Prices")
	equal(t, "replaced prices", got, ps2)
	got, err = s.Prices(ctx(t), b.ID)
	must(t, err, "Prices of another organization")
	equal(t, "another organization's prices", got, []pricing.Price{})
	must(t, s.PutPrices(ctx(t), a.ID, nil, at(3)), "PutPrices empty")
	got, err = s.Prices(ctx(t), a.ID)
	must(t, err, "Prices")
	equal(t, "emptied prices", got, []pricing.Price{})
}
