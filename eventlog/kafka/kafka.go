// Package kafka is the event log on Apache Kafka, Vigil's scale-out
// engine: the producer the ingest endpoints append through (Producer, an
// eventlog.Log) and the consumer group the processors read with (Source,
// an eventlog.Source). It imports the eventlog contract and nothing of the
// code that uses it.
package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// NewClient returns a client for brokers with Vigil's durability settings:
// an idempotent producer that waits for every in-sync replica (acks=all).
// It connects lazily; Check proves the brokers answer.
func NewClient(brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	if len(brokers) == 0 {
		return nil, fmt.Errorf("kafka: no brokers")
	}
	base := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ClientID("vigil"),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return cl, nil
}

// Check asks the cluster for its metadata: nil means a broker answered.
func Check(ctx context.Context, cl *kgo.Client) error {
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	return nil
}
