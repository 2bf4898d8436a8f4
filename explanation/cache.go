package explanation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/kvcache"
)

// cacheKey is the cache's key of an explanation of req by method with the
// artifact art, planned as p: the organization and model, the artifact's
// version (its kind and upload time: a new upload is a new version), the
// method, the request's instance and the background rows (feature name
// order does not matter: JSON objects are written in key order) with
// their source when they are not the request's (the rows of the drift
// reference or of logged predictions as they were read), the cap of
// background_samples, and the sampling (seed and num_samples). "" when
// it cannot be written.
//
// Cache (spec 3's use_cache): generate answers a request from the cache
// (platform/kvcache: Redis when configured, in process otherwise) when an
// identical one, keyed on model, artifact version, method, instance,
// background rows (with their source when not the request's), seed and
// num_samples, was computed within the model's cache_ttl_hours; the
// explanation is then stored completed at once and says cached.
func (p plan) cacheKey(art *artifact.Artifact, req Request, method string) string {
	background, source := req.Background, ""
	if p.source != BackgroundRequest && p.source != "" {
		background, source = p.used, p.source
	}
	b, err := json.Marshal(struct {
		OrgID      string           `json:"org_id"`
		ModelID    string           `json:"model_id"`
		Kind       string           `json:"kind"`
		Version    int64            `json:"version"`
		Method     string           `json:"method"`
		Instance   map[string]any   `json:"instance"`
		Background []map[string]any `json:"background"`
		Source     string           `json:"background_source,omitempty"`
		Cap        int              `json:"background_samples,omitempty"`
		Seed       *uint64          `json:"seed"`
		Samples    int              `json:"num_samples"`
	}{art.OrgID, art.ModelID, art.Kind, art.UploadedAt.UnixMicro(), CanonicalMethod(method), req.Instance, background, source,
		req.BackgroundSamples, req.Seed, req.NumSamples})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "explanation:" + hex.EncodeToString(sum[:])
}

// cached returns the outcome cached under key; nil when there is none
// (or the cache cannot answer: the explanation is then computed).
func cached(ctx context.Context, c kvcache.Cache, key string) *Outcome {
	if c == nil || key == "" {
		return nil
	}
	b, ok, err := c.Get(ctx, key)
	if err != nil || !ok {
		return nil
	}
	var o Outcome
	if json.Unmarshal(b, &o) != nil {
		return nil
	}
	o.Cached = true
	return &o
}

// keep puts o in the cache under key for ttlHours (nothing when 0).
func keep(ctx context.Context, c kvcache.Cache, key string, ttlHours int, o *Outcome) error {
	if c == nil || key == "" || ttlHours <= 0 || o == nil {
		return nil
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return c.Set(ctx, key, b, time.Duration(ttlHours)*time.Hour)
}
