package explanation

import (
	"context"
	"time"
)

// Config is one model's explanation configuration (spec 3). Enabled and
// DefaultMethod are applied by POST /explanations/generate; AutoExplain
// (with AutoExplainRate) by the processor role's autoexplain.Explainer, which
// explains a sampled share of the model's logged predictions;
// CacheEnabled and CacheTTLHours by generate and explainjob.Runner: a request
// with use_cache is answered from the cache, and a computed outcome kept
// there for CacheTTLHours.
type Config struct {
	OrgID, ModelID string
	Enabled        bool
	// DefaultMethod is one of RequestMethods.
	DefaultMethod string
	AutoExplain   bool
	// AutoExplainRate is the share (0-1) of the logged predictions
	// auto-explained; nil takes the autoexplain.Explainer's default.
	AutoExplainRate *float64
	CacheEnabled    bool
	// CacheTTLHours is 1 to MaxCacheTTLHours.
	CacheTTLHours int
	// UpdatedAt is the zero time for a model that has no stored
	// configuration.
	UpdatedAt time.Time
}

// MaxCacheTTLHours bounds Config.CacheTTLHours: a year.
const MaxCacheTTLHours = 8760

// DefaultConfig is the configuration of a model that has none stored.
func DefaultConfig(orgID, modelID string) Config {
	return Config{OrgID: orgID, ModelID: modelID, Enabled: true, DefaultMethod: RequestSHAP, CacheEnabled: true,
		CacheTTLHours: 24}
}

// ConfigStore keeps per-model configurations; the transactional store is
// one.
type ConfigStore interface {
	// ExplanationConfig returns the model's stored configuration;
	// store.ErrNotFound when it has none.
	ExplanationConfig(ctx context.Context, orgID, modelID string) (Config, error)
	// PutExplanationConfig stores c in place of the model's;
	// store.ErrNotFound when the organization has no such model.
	PutExplanationConfig(ctx context.Context, c Config) error
}
