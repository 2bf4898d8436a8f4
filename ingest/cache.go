package ingest

import (
	"sync"
	"time"

	"github.com/vigilhq/vigil/registry"
)

// modelTTL is how long a model looked up for ingest is trusted: a model
// archived or deleted is noticed within it. Events that slip through for a
// deleted model are dropped by the processors.
const modelTTL = 2 * time.Second

// modelCache keeps recently looked-up models so that logging a prediction
// does not read the transactional store each time. The zero value works.
type modelCache struct {
	mu sync.Mutex
	m  map[string]cachedModel
}

type cachedModel struct {
	model   registry.Model
	expires time.Time
}

func (c *modelCache) get(orgID, id string, now time.Time) (registry.Model, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[orgID+"/"+id]
	if !ok || !now.Before(e.expires) {
		return registry.Model{}, false
	}
	return e.model, true
}

func (c *modelCache) put(orgID string, m registry.Model, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 100_000 {
		c.m = map[string]cachedModel{}
	}
	c.m[orgID+"/"+m.ID] = cachedModel{model: m, expires: now.Add(modelTTL)}
}
