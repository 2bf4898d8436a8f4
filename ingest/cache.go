package ingest

import (
	"time"

	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/registry"
)

// modelTTL is how long a model looked up for ingest is trusted: a model
// archived or deleted is noticed within it. Events that slip through for a
// deleted model are dropped by the processors.
const modelTTL = 2 * time.Second

// modelKey names a model in the cache: its organization and id, or (for
// OTLP spans) its organization and name.
type modelKey struct{ org, id, name string }

// modelCache returns the cache of models looked up for ingest, so that logging
// a prediction does not read the transactional store each time and goes on
// through its outage for models read within modelTTL+StaleIfError.
func (a *API) modelCache() *cache.Cache[modelKey, registry.Model] {
	a.once.Do(func() {
		a.models.TTL, a.models.StaleIfError = modelTTL, a.StaleIfError
	})
	return &a.models
}
