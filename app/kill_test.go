//go:build fault

package app

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/stats/profile"
)

// killCount is how many times the kill tests SIGKILL a Vigil process.
const killCount = 20

// killSeed is the seed of the kill points: VIGIL_KILL_SEED when set (to
// replay a failure), else the time. It is logged.
func killSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("VIGIL_KILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("VIGIL_KILL_SEED: %v", err)
		}
	}
	t.Logf("kill seed %d (replay with VIGIL_KILL_SEED=%d)", seed, seed)
	return seed
}

// killer SIGKILLs a process at killCount random points, restarting it
// each time, while the test streams events.
type killer struct {
	t     *testing.T
	rng   *rand.Rand
	start func() (*child, error)

	mu    sync.Mutex
	proc  *child
	kills int
	done  chan error
}

// startKiller kills p killCount times, each after a random uptime in
// [min, max), starting it again with start.
func startKiller(t *testing.T, seed uint64, min, max time.Duration, p *child, start func() (*child, error)) *killer {
	t.Helper()
	k := &killer{t: t, rng: rand.New(rand.NewPCG(seed, seed>>1)), start: start, proc: p, done: make(chan error, 1)}
	t.Cleanup(func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.proc.kill()
	})
	go func() { k.done <- k.run(min, max) }()
	return k
}

func (k *killer) run(min, max time.Duration) error {
	for range killCount {
		time.Sleep(min + time.Duration(k.rng.Int64N(int64(max-min))))
		k.mu.Lock()
		k.proc.kill()
		k.kills++
		p, err := k.start()
		if err != nil {
			k.mu.Unlock()
			return err
		}
		k.proc = p
		k.mu.Unlock()
	}
	return nil
}

// wait waits for the last kill and restart.
func (k *killer) wait() {
	k.t.Helper()
	if err := <-k.done; err != nil {
		k.t.Fatalf("restart after a kill: %v", err)
	}
	k.t.Logf("killed and restarted %d times", k.kills)
}

// stream sends n predictions in batches of 1000 through the ledger. After
// a call that got no answer (the process was killed under it, it is
// ambiguous) it waits for the process to answer again, so that a restart
// does not burn through the stream.
func stream(t *testing.T, l *ledger, n int) {
	t.Helper()
	health := strings.TrimSuffix(l.s.base, "/api/v1") + "/healthz"
	for l.next < n {
		switch status := l.send(t, 1000); {
		case status == 0:
			for deadline := time.Now().Add(time.Minute); !answers(health); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s does not answer a minute after a kill", health)
				}
			}
		case status != 201:
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// answers reports whether GET url answers 200.
func answers(url string) bool {
	res, err := http.Get(url)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// apartProcesses starts an API process on cfg and returns a client of it,
// a read-write key of its first admin, and start, which starts a processor
// process on cfg: a static member, so that a restarted processor takes its
// partitions back at once rather than after the dead one's session
// timeout.
func apartProcesses(t *testing.T, cfg config.Config) (s *server, key string, start func() (*child, error)) {
	t.Helper()
	bin := buildVigil(t)
	dir := t.TempDir()
	cfg.Roles = []string{config.RoleAPI}
	api, err := spawn(bin, "127.0.0.1:0", dir, vigilEnv(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.kill)
	s = clientOf(t, api.addr)
	key, _ = s.key(s.admin(), "read", "write")
	cfg.Roles = []string{config.RoleProcessor}
	env := vigilEnv(cfg, "VIGIL_KAFKA_INSTANCE_ID=processor-0")
	return s, key, func() (*child, error) { return spawn(bin, "127.0.0.1:0", dir, env) }
}

// TestFaultProcessorKill (RELIABILITY 24): on Kafka and ClickHouse, an API
// process takes 100,000 predictions while a separate processor process is
// SIGKILLed at 20 random points and restarted each time: every
// acknowledged prediction is stored exactly once, and the stats count
// each once. Only the Vigil processes it started are killed.
func TestFaultProcessorKill(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.Limits.Batch = 1 << 20
	s, key, start := apartProcesses(t, cfg)
	l := newLedger(s, key, s.model(key, "killed", "1"))
	proc, err := start()
	if err != nil {
		t.Fatal(err)
	}
	k := startKiller(t, killSeed(t), 500*time.Millisecond, 3*time.Second, proc, start)
	stream(t, l, 100_000)
	k.wait()
	l.check(t, 3*time.Minute)
	if len(l.acked) != 100_000 || len(l.ambiguous) != 0 {
		t.Fatalf("got %d acknowledged, %d ambiguous, want all 100000 acknowledged: the API was never killed", len(l.acked), len(l.ambiguous))
	}
	if n := profiledRows(t, cfg.ClickHouseURL, l.model); n != 100_000 {
		t.Fatalf("got %d predictions in the model's input profiles, want 100000: each once, however the kills cut the batches", n)
	}
}

// profiledRows sums the rows of a model's hourly input profiles, read
// straight from ClickHouse.
func profiledRows(t *testing.T, url, model string) int64 {
	t.Helper()
	conn, err := clickhouse.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(context.Background(), `SELECT profile FROM feature_profiles FINAL WHERE model_id = ? AND side = ?`,
		model, analytics.SideInput)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var text string
		var p profile.Profile
		if err := rows.Scan(&text); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(err)
		}
		total += p.Rows
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// TestFaultServeKill: on the embedded default, where the log and the
// processor live in the one process, `vigil serve` is SIGKILLed at 20
// random points while a client streams 100,000 predictions, and restarted
// on the same data each time: every acknowledged prediction survives and
// counts once; calls cut by a kill are ambiguous.
func TestFaultServeKill(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limits.Batch = 1 << 20
	bin := buildVigil(t)
	dir, addr := t.TempDir(), freeAddr(t)
	start := func() (*child, error) { return spawn(bin, addr, dir, vigilEnv(cfg)) }
	first, err := start()
	if err != nil {
		t.Fatal(err)
	}
	s := clientOf(t, addr)
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "killed", "1")
	k := startKiller(t, killSeed(t), 500*time.Millisecond, 3*time.Second, first, start)
	l := newLedger(s, key, model)
	stream(t, l, 100_000)
	k.wait()
	l.check(t, 3*time.Minute)
	if len(l.acked) < 50_000 {
		t.Fatalf("got %d acknowledged, want most of the 100000", len(l.acked))
	}
}
