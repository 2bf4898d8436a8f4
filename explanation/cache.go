package explanation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/platform/kvcache"
)

// cacheKey is the cache's key of an explanation of req by method with the
// artifact art: the organization and model, the artifact's version (its
// kind and upload time: a new upload is a new version), the method and
// the request's instance and background rows (feature name order does not
// matter: JSON objects are written in key order).
func cacheKey(art *Artifact, req Request, method string) (string, error) {
	b, err := json.Marshal(struct {
		OrgID      string           `json:"org_id"`
		ModelID    string           `json:"model_id"`
		Kind       string           `json:"kind"`
		Version    int64            `json:"version"`
		Method     string           `json:"method"`
		Instance   map[string]any   `json:"instance"`
		Background []map[string]any `json:"background"`
	}{art.OrgID, art.ModelID, art.Kind, art.UploadedAt.UnixMicro(), method, req.Instance, req.Background})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "explanation:" + hex.EncodeToString(sum[:]), nil
}

// cached returns the cached outcome of req by method with art; nil when
// there is none (or the cache cannot answer: the explanation is then
// computed).
func cached(ctx context.Context, c kvcache.Cache, art *Artifact, req Request, method string) *Outcome {
	if c == nil {
		return nil
	}
	key, err := cacheKey(art, req, method)
	if err != nil {
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

// keep puts o, the outcome of req by method with art, in the cache for
// req.CacheTTLHours (nothing when 0).
func keep(ctx context.Context, c kvcache.Cache, art *Artifact, req Request, method string, o *Outcome) error {
	if c == nil || req.CacheTTLHours <= 0 || o == nil {
		return nil
	}
	key, err := cacheKey(art, req, method)
	if err != nil {
		return err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return c.Set(ctx, key, b, time.Duration(req.CacheTTLHours)*time.Hour)
}
