// Package kafkatest opens the Kafka event log for tests: topics under a
// prefix of the test's own, a producer on them and consumer groups under
// the same prefix, as the engine's contract tests and the processors'
// tests on Kafka need them.
//
// It imports the Kafka engine and platform/testenv; it must not import
// the processors, the stores or the API packages.
package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/platform/testenv"
)

// Partitions is how many partitions each topic has.
const Partitions = 3

// Log creates the topics of every kind, of Partitions partitions each,
// under a prefix of t's own on brokers (deleted when t ends), and returns
// a producer on them, closed when t ends, and a constructor of consumers:
// group under the same prefix, reading with o (whose Brokers, Group and
// Prefix it fills in). The caller closes each consumer.
func Log(t testing.TB, brokers []string, o kafka.Options) (*kafka.Producer, func(group string) *kafka.Source) {
	t.Helper()
	prefix := testenv.KafkaPrefix(t, brokers)
	p, err := kafka.NewProducer(brokers, kafka.ProducerOptions{Prefix: prefix})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	t.Cleanup(p.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, p.Client(), prefix, Partitions, 1); err != nil {
		t.Fatalf("EnsureTopics: %v", err)
	}
	return p, func(group string) *kafka.Source {
		t.Helper()
		c := o
		c.Brokers, c.Group, c.Prefix = brokers, prefix+group, prefix
		s, err := kafka.New(c)
		if err != nil {
			t.Fatalf("kafka.New: %v", err)
		}
		return s
	}
}
