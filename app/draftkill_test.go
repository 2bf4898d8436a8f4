//go:build fault

package app

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/governance"
)

// TestFaultDraftingKill (issue 13, point 3): on Kafka and PostgreSQL, a
// backlog of governance events, each source on the log twice, is drafted
// by a processor process SIGKILLed at 20 random points and restarted each
// time, so that kills fall between the drafter's inserts and its offset
// commits. Every source of the model joins its one open entry (issue 41:
// a repeat result is added to the open entry's trail), and each source
// stands on that trail exactly once. Only the Vigil processes it started
// are killed.
func TestFaultDraftingKill(t *testing.T) {
	const sources = 3000
	cfg := kafkaConfig(t)
	s, key, start := apartProcesses(t, cfg)
	model := s.model(key, "drafted", "1")
	org := s.do("GET", "/auth/me", key, nil).want(t, 200).str("user.organization_id")

	p, err := kafka.NewProducer(cfg.KafkaBrokers, kafka.ProducerOptions{Prefix: cfg.KafkaTopicPrefix})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	event := func(src string) eventlog.Record {
		r, err := governance.EventRecord(governance.Event{EventID: src, OrgID: org, ModelID: model, SourceType: governance.SourceDriftReport,
			SourceID: src, Severity: "high", Summary: "drifted", Timestamp: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Every source twice, the second copy 500 records later: one model's
	// events share a partition, so the copies land in other batches.
	var recs []eventlog.Record
	for i := range sources {
		recs = append(recs, event(fmt.Sprint("source-", i)))
		if i >= 500 {
			recs = append(recs, event(fmt.Sprint("source-", i-500)))
		}
	}
	for i := sources - 500; i < sources; i++ {
		recs = append(recs, event(fmt.Sprint("source-", i)))
	}
	for i := 0; i < len(recs); i += 500 {
		if err := p.Append(t.Context(), recs[i:min(i+500, len(recs))]); err != nil {
			t.Fatalf("append: %v", err)
		}
	}

	proc, err := start()
	if err != nil {
		t.Fatal(err)
	}
	k := startKiller(t, killSeed(t), 300*time.Millisecond, 1500*time.Millisecond, proc, start)
	k.wait()
	seen := trail(t, s, key, model)
	t.Logf("%d of %d sources on the trail when the last kill fell", len(seen), sources)

	// A last source behind the backlog, on the same partition: once it is
	// on the trail, every event before it has been drafted.
	last := uuid.NewString()
	if err := p.Append(t.Context(), []eventlog.Record{event(last)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for seen = trail(t, s, key, model); seen[last] == 0; seen = trail(t, s, key, model) {
		if time.Now().After(deadline) {
			t.Fatalf("the last source not on the trail within 5 minutes of the last restart")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if total := s.do("GET", "/risk-register?model_id="+model, key, nil).want(t, 200).at("total"); total != 1.0 {
		t.Fatalf("got %v entries, want 1: every source joins the model's open entry", total)
	}
	for i := range sources {
		if n := seen[fmt.Sprint("source-", i)]; n != 1 {
			t.Fatalf("got source-%d %d times on the trail, want once however the kills cut the batches", i, n)
		}
	}
	if len(seen) != sources+1 {
		t.Fatalf("got %d sources on the trail, want %d", len(seen), sources+1)
	}
}

// trail returns how many times each source stands on the trail of the
// model's drafted entry: the source it was drafted from, and each repeat
// trigger after it (none before there is an entry).
func trail(t *testing.T, s *server, key, model string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	items, _ := s.do("GET", "/risk-register?page_size=1&model_id="+model, key, nil).want(t, 200).at("risk_entries").([]any)
	if len(items) == 0 {
		return seen
	}
	e := items[0].(map[string]any)
	id, _ := e["id"].(string)
	src, _ := e["source_id"].(string)
	seen[src]++
	evs, _ := s.do("GET", "/risk-register/"+id+"/history", key, nil).want(t, 200).at("events").([]any)
	for _, ev := range evs {
		ev := ev.(map[string]any)
		if ev["event_action"] != "repeat_trigger" {
			continue
		}
		details, _ := ev["details"].(map[string]any)
		src, _ := details["source_id"].(string)
		seen[src]++
	}
	return seen
}
