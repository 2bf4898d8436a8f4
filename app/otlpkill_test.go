//go:build fault

package app

import (
	"database/sql"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/ingest/otlp/otlptest"
)

// TestFaultOTLPStop (issue 18 point 6): on the embedded default, a client
// exports GenAI spans over OTLP/HTTP (protobuf, 512 a call) while `vigil
// serve` is stopped mid-load and started again on the same data: SIGKILLed
// at 20 random points, and SIGTERMed at 5 (which must exit cleanly). Every
// span of an export answered 200 (none rejected) is stored exactly once and
// counted once in GET /llm/metrics; nothing is stored that was not sent;
// exports cut by a stop are ambiguous.
func TestFaultOTLPStop(t *testing.T) {
	for _, how := range []struct {
		name  string
		stops int
		stop  func(t *testing.T, c *child)
	}{
		{"kill -9", killCount, func(t *testing.T, c *child) { c.kill() }},
		{"SIGTERM", 5, func(t *testing.T, c *child) {
			if err := c.terminate(time.Minute); err != nil {
				t.Errorf("SIGTERM under load: %v, want a clean exit", err)
			}
		}},
	} {
		t.Run(how.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Limits.Batch = 1 << 20
			cfg.Limits.Predictions = 1 << 20
			bin := buildVigil(t)
			dir, addr := t.TempDir(), freeAddr(t)
			start := func() (*child, error) { return spawn(bin, addr, dir, vigilEnv(cfg)) }
			proc, err := start()
			if err != nil {
				t.Fatal(err)
			}
			s := clientOf(t, addr)
			key, _ := s.key(s.admin(), "read", "write")
			model := s.model(key, "spans", "1")
			seed := killSeed(t)

			// The stopper stops the process how.stops times at random
			// points, starting it again each time, while the client
			// streams; cur is the running process.
			var mu sync.Mutex
			cur := proc
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				cur.kill()
			}()
			stopped := make(chan error, 1)
			go func() {
				rng := rand.New(rand.NewPCG(seed, seed>>1))
				for range how.stops {
					time.Sleep(500*time.Millisecond + time.Duration(rng.Int64N(int64(2500*time.Millisecond))))
					mu.Lock()
					how.stop(t, cur)
					p, err := start()
					if err != nil {
						mu.Unlock()
						stopped <- err
						return
					}
					cur = p
					mu.Unlock()
				}
				stopped <- nil
			}()
			acked, ambiguous := map[string]bool{}, map[string]bool{}
			client := &http.Client{Timeout: time.Minute}
			root := "http://" + addr
			sent := 0
			for done := false; !done; {
				select {
				case err := <-stopped:
					if err != nil {
						t.Fatalf("restart: %v", err)
					}
					done = true
				default:
				}
				e, err := otlptest.Encode(model, seed, sent, 512)
				if err != nil {
					t.Fatal(err)
				}
				status, rejected, err := otlptest.Post(client, root+"/v1/traces", key, e.Body)
				file := ambiguous
				switch {
				case err == nil && rejected == 0:
					file = acked
				case err == nil:
					t.Fatalf("spans %d-%d: %d rejected, want none", e.From, e.From+e.N-1, rejected)
				case status != 0 && status < 500:
					t.Fatalf("spans %d-%d: %v", e.From, e.From+e.N-1, err)
				}
				for i := e.From; i < e.From+e.N; i++ {
					file[otlptest.CompletionID(seed, i)] = true
				}
				sent += e.N
				if status == 0 || status >= 500 {
					waitHealthy(t, root)
				}
			}
			t.Logf("%d spans sent: %d acknowledged, %d ambiguous", sent, len(acked), len(ambiguous))
			if len(acked) < sent/2 {
				t.Fatalf("got %d of %d spans acknowledged, want most", len(acked), sent)
			}

			var stored map[string]bool
			waitFor(t, "every acknowledged span stored", func() bool {
				stored = storedCompletions(t, filepath.Join(cfg.DataDir, sqlite.FileName), model)
				for id := range acked {
					if !stored[id] {
						return false
					}
				}
				return true
			})
			for id := range stored {
				if !acked[id] && !ambiguous[id] {
					t.Errorf("completion %s stored but never sent", id)
				}
			}
			waitFor(t, "/llm/metrics counting the stored spans", func() bool {
				return s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200).at("totals.completions") == float64(len(stored))
			})
			t.Logf("%d stored (%d of the ambiguous)", len(stored), len(stored)-len(acked))
		})
	}
}

// waitHealthy waits for the restarted process at root to answer.
func waitHealthy(t *testing.T, root string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !answers(root + "/healthz"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer a minute after a stop", root)
		}
	}
}

// storedCompletions reads the ids of a model's completions straight from
// the embedded analytical store's file, read-only beside the process.
func storedCompletions(t *testing.T, file, model string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT event_id FROM completions WHERE model_id = ?`, model)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if out[id] {
			t.Errorf("completion %s stored twice", id)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
