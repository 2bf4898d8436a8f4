package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/vigilhq/vigil/app"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

const password = "benchmark password"

// server starts Vigil with cfg on loopback and returns its API base URL.
func server(b *testing.B, tweak func(*config.Config)) string {
	b.Helper()
	cfg, err := config.Parse(nil, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	cfg.Addr, cfg.DataDir, cfg.AdminPassword = "127.0.0.1:0", b.TempDir(), password
	// The benchmark measures the request path, not the limiter's refusals.
	cfg.Limits = config.Limits{Standard: 1 << 40, Predictions: 1 << 40, Batch: 1 << 40, Reports: 1 << 40}
	if v := os.Getenv("VIGIL_BENCH_KAFKA_PRODUCERS"); v != "" { // to compare producer counts in one run
		if cfg.KafkaProducers, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	if tweak != nil {
		tweak(&cfg)
	}
	var logs io.Writer = io.Discard
	if os.Getenv("VIGIL_BENCH_LOG") != "" { // to see why a run fails
		logs = os.Stderr
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done; a.Close() })
	return "http://" + a.Addr() + "/api/v1"
}

func post(b *testing.B, url, token string, body any) map[string]any {
	b.Helper()
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(j))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode >= 300 {
		b.Fatalf("POST %s: %d %v %v", url, res.StatusCode, out, err)
	}
	return out
}

// apiKey logs in as the admin, registers a model and returns a key.
func apiKey(b *testing.B, base string) string {
	b.Helper()
	token := post(b, base+"/auth/login", "", map[string]any{"username": "admin", "password": password})["access_token"].(string)
	key := post(b, base+"/api-keys", token, map[string]any{"name": "bench", "scopes": []string{"read", "write"}})["raw_key"].(string)
	post(b, base+"/models", key, map[string]any{"name": "bench", "model_type": "classification"})
	return key
}

// benchmarkRead measures GET /models/{name}/latest with an API key: the
// path every authenticated request takes (key lookup, user and role
// reads, rate limit, permission check) plus one indexed read.
func benchmarkRead(b *testing.B, tweak func(*config.Config)) {
	base := server(b, tweak)
	key := apiKey(b, base)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", base+"/models/bench/latest", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("got %d, want 200", res.StatusCode)
				return
			}
		}
	})
}

func BenchmarkAuthenticatedRead(b *testing.B) {
	b.Run("sqlite+memory", func(b *testing.B) { benchmarkRead(b, nil) })
	b.Run("postgres+redis", func(b *testing.B) {
		pg, redis := testenv.PostgresSchema(b), testenv.URL(b, testenv.Redis)
		benchmarkRead(b, func(c *config.Config) {
			c.PostgresURL, c.RedisURL, c.RedisPrefix = pg, redis, "vigil-bench:"+b.Name()+":"
		})
	})
}

// BenchmarkLogin measures POST /auth/login, dominated by Argon2id (19 MiB,
// two passes) by design.
func BenchmarkLogin(b *testing.B) {
	base := server(b, nil)
	body := map[string]any{"username": "admin", "password": password}
	b.ResetTimer()
	for b.Loop() {
		post(b, base+"/auth/login", "", body)
	}
}
