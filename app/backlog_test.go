//go:build fault

package app

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFaultKafkaBacklog (issue 33, RELIABILITY 26 and 29): on Kafka and
// ClickHouse of the test's own, an API process and a processor process
// run apart. Kafka is stopped while a client sends: no 201, a prediction
// answers 503 with Retry-After (how soon is logged); Kafka is started
// again; with the processor stopped, the client builds a backlog of
// 100,000 acknowledged predictions; the processor then catches up in full
// polls (20,000 messages) and is SIGKILLed three times at random points
// during the catch-up, restarted each time. Every acknowledged prediction
// is stored exactly once and the stats count each once.
func TestFaultKafkaBacklog(t *testing.T) {
	engines := privateEngines(t, "kafka", "clickhouse")
	cfg := kafkaConfig(t)
	cfg.Limits.Batch = 1 << 20
	cfg.Limits.Standard = 1 << 20 // the ledger reads 100 pages each time it looks
	s, key, start := apartProcesses(t, cfg)
	l := newLedger(s, key, s.model(key, "backlog", "1"))
	// Ids as long as UUIDs: a read that wrote a poll's ids into its text
	// would pass ClickHouse's max_query_size (20,000 ids of 38 bytes, 42 quoted).
	l.prefix = "backlog-0190a3c2-7d1e-7c4b-9f00-"
	proc, err := start()
	if err != nil {
		t.Fatal(err)
	}
	if status := l.send(t, 1000); status != 201 {
		t.Fatalf("got %d before the outage, want 201", status)
	}

	engines("stop", "kafka")
	t.Cleanup(func() { engines("start", "kafka") })
	for i := range 3 {
		began := time.Now()
		if status := l.send(t, 100); status == 201 {
			t.Fatalf("got 201 while Kafka is down, want 503")
		}
		t.Logf("batch %d while Kafka is down: answered after %v", i+1, time.Since(began).Round(time.Millisecond))
	}
	began := time.Now()
	r := s.do("POST", "/predictions/log", key, map[string]any{"model_id": l.model, "input_data": map[string]any{},
		"output_data": map[string]any{}})
	t.Logf("one prediction while Kafka is down: %d after %v", r.status, time.Since(began).Round(time.Millisecond))
	r.wantUnavailable(t, "a prediction while Kafka is down")
	engines("start", "kafka")
	proc.kill()
	for deadline := time.Now().Add(time.Minute); l.send(t, 1000) != 201; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatal("ingest did not recover within a minute of Kafka's restart")
		}
	}
	before := len(l.acked)
	stream(t, l, l.next+100_000)
	t.Logf("backlog of %d acknowledged predictions built with the processor stopped", len(l.acked)-before)

	rng := rand.New(rand.NewPCG(killSeed(t), 0))
	for range 3 {
		if proc, err = start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second + time.Duration(rng.Int64N(int64(4*time.Second))))
		proc.kill()
	}
	if proc, err = start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.kill)
	l.check(t, 5*time.Minute)
	if len(l.acked)-before < 100_000 {
		t.Fatalf("got %d acknowledged in the backlog, want at least 100000", len(l.acked)-before)
	}
}
