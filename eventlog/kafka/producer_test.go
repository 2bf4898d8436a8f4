package kafka_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
)

func record(kind, key, value string) eventlog.Record {
	return eventlog.Record{Kind: kind, Key: key, Value: []byte(value)}
}

// TestUnreachable shows that Append to a cluster nobody answers for fails
// with eventlog.ErrUnavailable as soon as a dial is refused, long before
// its deadline (an hour here: a test that waited for it would hit its own
// timeout), and that the buffer is bounded, so memory stays bounded
// however long it lasts.
func TestUnreachable(t *testing.T) {
	p, err := kafka.NewProducer([]string{"127.0.0.1:1"}, kafka.ProducerOptions{
		Timeout: time.Hour, MaxBufferedRecords: 100, MaxBufferedBytes: 1 << 20,
	})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	unavailable(t, p, "one record", 1)
	// More records than the buffer holds: nothing is buffered while no
	// broker answers.
	unavailable(t, p, "more than the buffer", 1000)
	unavailable(t, p, "again", 10)
}

// TestBrokerStopped: a cluster that answered stops (its connections
// closed, its port refusing): the next Appends fail with
// eventlog.ErrUnavailable at once, not at their deadline of an hour.
func TestBrokerStopped(t *testing.T) {
	c := fake(t)
	p, err := kafka.NewProducer(c.ListenAddrs(), kafka.ProducerOptions{Timeout: time.Hour})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	if err := kafka.EnsureTopics(t.Context(), p.Client(), kafka.DefaultPrefix, 1, 1); err != nil {
		t.Fatalf("EnsureTopics: %v", err)
	}
	if err := p.Append(t.Context(), []eventlog.Record{record(eventlog.KindPrediction, "org/model", "v")}); err != nil {
		t.Fatalf("Append before the stop: %v", err)
	}
	c.Close()
	unavailable(t, p, "first after the stop", 1)
	unavailable(t, p, "second", 100)
}

// unavailable appends n records to p and fails t unless Append fails
// with eventlog.ErrUnavailable; it logs how long that took.
func unavailable(t *testing.T, p *kafka.Producer, name string, n int) {
	t.Helper()
	recs := make([]eventlog.Record, n)
	for i := range recs {
		recs[i] = record(eventlog.KindPrediction, "org/model", "value")
	}
	start := time.Now()
	err := p.Append(t.Context(), recs)
	if !errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("%s: Append: got %v, want an error wrapping eventlog.ErrUnavailable", name, err)
	}
	t.Logf("%s: failed after %v: %v", name, time.Since(start).Round(time.Millisecond), err)
}

func TestAppendAfterClose(t *testing.T) {
	c := fake(t)
	p, err := kafka.NewProducer(c.ListenAddrs(), kafka.ProducerOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	p.Close()
	err = p.Append(t.Context(), []eventlog.Record{record(eventlog.KindMetric, "k", "v")})
	if !errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Append after Close: got %v, want an error wrapping eventlog.ErrUnavailable", err)
	}
}

func TestUnknownKind(t *testing.T) {
	p, err := kafka.NewProducer([]string{"127.0.0.1:1"}, kafka.ProducerOptions{})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	err = p.Append(t.Context(), []eventlog.Record{record("bogus", "k", "v")})
	if err == nil || errors.Is(err, eventlog.ErrUnavailable) {
		t.Fatalf("Append of an unknown kind: got %v, want a non-retryable error", err)
	}
}

func fake(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatalf("kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestProduce shows, on kfake, that records land on the kind's topic with
// their key and value, in order per key, and that EnsureTopics is
// idempotent.
func TestProduce(t *testing.T) {
	c := fake(t)
	const prefix = "test."
	p, err := kafka.NewProducer(c.ListenAddrs(), kafka.ProducerOptions{Prefix: prefix, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	for range 2 {
		if err := kafka.EnsureTopics(t.Context(), p.Client(), prefix, 4, 1); err != nil {
			t.Fatalf("EnsureTopics: %v", err)
		}
	}
	topics, err := kadm.NewClient(p.Client()).ListTopics(t.Context())
	if err != nil {
		t.Fatalf("ListTopics: %v", err)
	}
	for _, k := range eventlog.Kinds {
		td, ok := topics[prefix+k]
		if !ok || len(td.Partitions) != 4 {
			t.Fatalf("topic %s: got exists=%v with %d partitions, want 4 partitions", prefix+k, ok, len(td.Partitions))
		}
	}

	var recs []eventlog.Record
	for i := range 40 {
		recs = append(recs, record(eventlog.Kinds[i%3], []string{"a/1", "b/2"}[i%2], string(rune('A'+i))))
	}
	if err := p.Append(t.Context(), recs); err != nil {
		t.Fatalf("Append: %v", err)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...),
		kgo.ConsumeTopics(prefix+eventlog.KindPrediction, prefix+eventlog.KindMetric, prefix+eventlog.KindCompletion),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatalf("consumer: %v", err)
	}
	defer cl.Close()
	got := map[string]string{} // topic + key: values in order
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for n := 0; n < len(recs); {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("poll: %v", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Topic+" "+string(r.Key)] += string(r.Value)
			n++
		})
	}
	want := map[string]string{}
	for _, r := range recs {
		want[prefix+r.Kind+" "+r.Key] += string(r.Value)
	}
	if len(got) != len(want) {
		t.Fatalf("got streams %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got values %q, want %q", k, got[k], w)
		}
	}
}
