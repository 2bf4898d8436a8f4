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
// commits. Every source ends with exactly one entry. Only the Vigil
// processes it started are killed.
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
	t.Logf("%v of %d sources drafted when the last kill fell", s.do("GET", "/risk-register?model_id="+model, key, nil).want(t, 200).at("total"), sources)

	// A last source behind the backlog, on the same partition: once it is
	// drafted, every event before it has been.
	last := uuid.NewString()
	if err := p.Append(t.Context(), []eventlog.Record{event(last)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !drafted(s, key, last) {
		if time.Now().After(deadline) {
			t.Fatalf("the last source not drafted within 5 minutes of the last restart")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if total := s.do("GET", "/risk-register?model_id="+model, key, nil).want(t, 200).at("total"); total != float64(sources+1) {
		t.Fatalf("got %v entries, want %d: one per source however the kills cut the batches", total, sources+1)
	}
}

// drafted reports whether the register holds an entry drafted from the
// drift report src (the newest entry, as the backlog's last).
func drafted(s *server, key, src string) bool {
	items, _ := s.do("GET", "/risk-register?page_size=1", key, nil).at("risk_entries").([]any)
	return len(items) == 1 && items[0].(map[string]any)["source_id"] == src
}
