package app

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestExplanationCache (spec 3's use_cache) on every backend (in process;
// Redis): a second identical request is answered completed at once from
// the cache, says cached and carries the first one's values; use_cache
// false, another method, a new upload of the artifact or cache_enabled
// false each compute again; on Redis the entry lives cache_ttl_hours.
func TestExplanationCache(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		upload := func() {
			s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
				"features": explainFeatures}).want(t, 200)
		}
		upload()
		s.do("PUT", "/explanations/config/"+model, key, map[string]any{"cache_ttl_hours": 2}).want(t, 200)
		instance := explainRow(g.rows[1])
		body := map[string]any{"model_id": model, "instance": instance}
		generate := func(b map[string]any, wantCached bool) response {
			t.Helper()
			return generateExplanation(t, s, key, b, wantCached)
		}
		first := generate(body, false)
		if first.at("cached") != false {
			t.Errorf("computed explanation: got cached %v, want false", first.at("cached"))
		}
		again := generate(body, true)
		if again.at("cached") != true || again.at("computation_time_ms") != first.at("computation_time_ms") {
			t.Errorf("cached explanation: got cached %v, computation_time_ms %v, want true, %v", again.at("cached"),
				again.at("computation_time_ms"), first.at("computation_time_ms"))
		}
		for i, f := range explainFeatures {
			w, _ := again.at("feature_weights." + f.(string)).(float64)
			if math.Abs(w-g.values[1][i]) > 1e-9 {
				t.Errorf("cached feature_weights.%s: got %v, want %v", f, w, g.values[1][i])
			}
		}
		generate(map[string]any{"model_id": model, "instance": instance, "use_cache": false}, false)
		withBackground := map[string]any{"model_id": model, "instance": instance, "method": "kernel_shap", "background": g.completeBackground()}
		generate(withBackground, false)
		generate(withBackground, true)

		if s.app.redis != nil {
			prefix := s.app.cfg.RedisPrefix + "explanation:"
			keys, err := s.app.redis.Keys(context.Background(), prefix+"*").Result()
			if err != nil || len(keys) != 2 {
				t.Fatalf("got Redis keys %v, %v, want the 2 explanations cached", keys, err)
			}
			for _, k := range keys {
				ttl, err := s.app.redis.TTL(context.Background(), k).Result()
				if err != nil || ttl <= 2*time.Hour-time.Minute || ttl > 2*time.Hour {
					t.Errorf("TTL of %s: got %v, %v, want about cache_ttl_hours (2 h)", k, ttl, err)
				}
			}
		}

		upload() // a new version of the model
		generate(body, false)
		generate(body, true)
		s.do("PUT", "/explanations/config/"+model, key, map[string]any{"cache_enabled": false}).want(t, 200)
		generate(body, false)
		if st := s.do("GET", "/explanations/stats?model_id="+model, key, nil).want(t, 200); st.at("total") != 8.0 {
			t.Errorf("got %v explanations in the stats, want 8", st.at("total"))
		}
	})
}

// generateExplanation posts b to /explanations/generate and answers the
// explanation: at once when it is from the cache (wantCached), else once
// computed.
func generateExplanation(t *testing.T, s *server, key string, b map[string]any, wantCached bool) response {
	t.Helper()
	acc := s.do("POST", "/explanations/generate", key, b).want(t, http.StatusAccepted)
	if acc.at("cached") != wantCached {
		t.Fatalf("got cached %v in %s, want %v", acc.at("cached"), acc.raw, wantCached)
	}
	if wantCached {
		if acc.str("status") != "completed" {
			t.Fatalf("cached answer: got status %q, want completed", acc.str("status"))
		}
		return s.do("GET", "/explanations/"+acc.str("explanation_id"), key, nil).want(t, 200)
	}
	return pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
}

// TestExplanationCacheRedisOutage: with Redis cut, explanations are
// still answered, and cached in process: the first request after the
// cut computes again (the breaker opens), the next identical one is
// answered from memory. Once Redis answers again, a probe closes the
// breaker and explanations are cached in Redis again.
func TestExplanationCacheRedisOutage(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	proxy, url := testenv.Proxied(t, testenv.URL(t, testenv.Redis))
	cfg := testConfig(t)
	cfg.RedisURL, cfg.RedisPrefix = url, "vigil-test:"+uuid.NewString()+":"
	s := start(t, cfg)
	cache, ok := s.app.explainCache.(*kvcache.Failover)
	if !ok {
		t.Fatalf("got an explanation cache %T on Redis, want a *kvcache.Failover", s.app.explainCache)
	}
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "fraud", "1")
	s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
		"features": explainFeatures}).want(t, 200)
	before := map[string]any{"model_id": model, "instance": explainRow(g.rows[1])}
	generateExplanation(t, s, key, before, false)
	generateExplanation(t, s, key, before, true)

	proxy.Cut()
	generateExplanation(t, s, key, before, false)
	if cache.Up() {
		t.Fatal("after a request during the cut: got the cache's breaker closed, want it open")
	}
	generateExplanation(t, s, key, before, true)

	proxy.Restore()
	waitFor(t, "the explanation cache back on Redis", func() bool {
		_, _, _ = cache.Get(t.Context(), "probe") // a call starts a probe once one is due
		return cache.Up()
	})
	after := map[string]any{"model_id": model, "instance": explainRow(g.rows[2])}
	generateExplanation(t, s, key, after, false)
	generateExplanation(t, s, key, before, true)
	keys, err := s.app.redis.Keys(t.Context(), cfg.RedisPrefix+"explanation:*").Result()
	if err != nil || len(keys) != 2 {
		t.Errorf("got Redis keys %v, %v, want the explanations of before and after the cut", keys, err)
	}
}
