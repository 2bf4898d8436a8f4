package app

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/pricing"
)

// pricesTTL is how long a replica prices completions by an organization's
// table before reading it again: a PUT /llm/prices applies at once on the
// replica that took it and within pricesTTL on the others.
const pricesTTL = 10 * time.Second

// pricingAPI is GET/PUT /llm/prices, whose tables price the completions
// logged without a cost.
func (a *App) pricingAPI() *pricing.API {
	return &pricing.API{Store: a.store, Clock: a.clock(),
		Tables: &cache.Cache[string, pricing.Table]{TTL: pricesTTL, StaleIfError: a.cfg.StaleIfError}}
}

// completionCost is ingest's Cost by the prices of p.
func completionCost(p *pricing.API) func(ctx context.Context, orgID, provider, model string, t eventlog.Tokens) (float64, error) {
	return func(ctx context.Context, orgID, provider, model string, t eventlog.Tokens) (float64, error) {
		c, _, err := p.Cost(ctx, orgID, provider, model, t.PromptTokens, t.CompletionTokens)
		return c, err
	}
}
