package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
)

// DefaultPrefix starts the name of every topic: kind "predictions" is
// topic "vigil.predictions".
const DefaultPrefix = "vigil."

// Defaults of ProducerOptions.
const (
	DefaultProduceTimeout     = 10 * time.Second
	DefaultMaxBufferedRecords = 100_000
	DefaultMaxBufferedBytes   = 256 << 20
	DefaultClients            = 1
)

// Topic returns the topic of kind under prefix.
func Topic(prefix, kind string) string { return prefix + kind }

// ProducerOptions tunes a Producer. The zero value takes every default.
type ProducerOptions struct {
	// Prefix starts every topic's name (DefaultPrefix).
	Prefix string
	// Timeout bounds one Append (DefaultProduceTimeout): when the brokers
	// do not acknowledge in time, Append fails with eventlog.ErrUnavailable
	// instead of hanging.
	Timeout time.Duration
	// MaxBufferedRecords and MaxBufferedBytes bound what the client keeps
	// in memory while brokers are slow or unreachable: an Append that does
	// not fit waits, then fails at its deadline.
	MaxBufferedRecords int
	MaxBufferedBytes   int
	// Clients is how many producer clients Appends are spread over
	// (DefaultClients), one connection and one idempotent producer id
	// each. An idempotent producer keeps one produce request in flight
	// per broker, so with one client every Append waits for the request
	// before its own; several clients keep several in flight. Each
	// Append goes whole to one client, so its records stay in order.
	// Against one broker over loopback, 4 clients gave no more single
	// events per second than 1 (benchmarks/history/issue-15.md), hence
	// the default of 1.
	Clients int
}

func (o ProducerOptions) withDefaults() ProducerOptions {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultProduceTimeout
	}
	if o.MaxBufferedRecords <= 0 {
		o.MaxBufferedRecords = DefaultMaxBufferedRecords
	}
	if o.MaxBufferedBytes <= 0 {
		o.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if o.Clients <= 0 {
		o.Clients = DefaultClients
	}
	return o
}

// Producer appends records to Kafka: one topic per kind, the record's key
// as the message key, so that one model's events share a partition and
// stay in order. It implements eventlog.Log and is safe for concurrent use.
type Producer struct {
	cls  []*kgo.Client // ProducerOptions.Clients clients, taken in turn
	next atomic.Uint32
	opts ProducerOptions
	// reach tells an unreachable cluster early (reachability).
	reach *reachability
}

var _ eventlog.Log = (*Producer)(nil)

// NewProducer returns a Producer on o.Clients new clients for brokers:
// idempotent, acks=all (NewClient), with bounded buffering (the bounds
// shared among the clients). opts are added to each client's options. It
// connects lazily; Close releases it.
func NewProducer(brokers []string, o ProducerOptions, opts ...kgo.Opt) (*Producer, error) {
	o = o.withDefaults()
	base := []kgo.Opt{
		kgo.MaxBufferedRecords(max(1, o.MaxBufferedRecords/o.Clients)),
		kgo.MaxBufferedBytes(max(1, o.MaxBufferedBytes/o.Clients)),
		// A backstop for records whose Append gave up: they fail rather
		// than wait for the brokers forever.
		kgo.RecordDeliveryTimeout(o.Timeout),
		kgo.ProduceRequestTimeout(o.Timeout),
	}
	p := &Producer{opts: o, reach: &reachability{}}
	base = append(base, kgo.WithHooks(p.reach))
	for range o.Clients {
		cl, err := NewClient(brokers, append(base, opts...)...)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.cls = append(p.cls, cl)
	}
	return p, nil
}

// Client returns one of the producer's clients, for Check and
// EnsureTopics.
func (p *Producer) Client() *kgo.Client { return p.cls[0] }

// Prefix returns the prefix of the producer's topics.
func (p *Producer) Prefix() string { return p.opts.Prefix }

// Close releases the clients. An Append still running fails with
// eventlog.ErrUnavailable, so stop the callers first (the API drains its
// requests before the log closes).
func (p *Producer) Close() {
	for _, cl := range p.cls {
		cl.Close()
	}
}

// Append implements eventlog.Log: it returns nil only once every in-sync
// replica has acknowledged every record (acks=all, idempotent producer).
// It fails within ProducerOptions.Timeout, and within about a second when
// no broker can be reached (reachability). Errors that retrying later may
// cure (brokers unreachable or slow, leader elections, not enough
// replicas, the deadline, a full buffer, a closed Producer) wrap
// eventlog.ErrUnavailable; a record Kafka refuses (too large, invalid,
// unauthorised topic) or an unknown kind is not retryable. On error some
// records may have been written. Append keeps no reference to recs once
// it returns.
func (p *Producer) Append(ctx context.Context, recs []eventlog.Record) error {
	if len(recs) == 0 {
		return nil
	}
	krs := make([]*kgo.Record, len(recs))
	for i := range recs {
		r := &recs[i]
		if !slices.Contains(eventlog.Kinds, r.Kind) {
			return fmt.Errorf("kafka: append: record %d: unknown kind %q", i, r.Kind)
		}
		// Copies: the client may still hold a record after a timed-out
		// Append returned, and the caller may reuse its buffers.
		krs[i] = &kgo.Record{Topic: Topic(p.opts.Prefix, r.Kind), Key: []byte(r.Key), Value: bytes.Clone(r.Value)}
		if krs[i].Value == nil {
			krs[i].Value = []byte{}
		}
	}
	cl := p.cls[int(p.next.Add(1))%len(p.cls)]
	if p.reach.down.Load() {
		if err := p.reach.probe(ctx, cl); err != nil {
			return fmt.Errorf("kafka: append %d records: %w", len(recs), classify(fmt.Errorf("no broker answers: %w", err)))
		}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel() // fails the records not sent yet, when Append gives up
	if err := p.produce(ctx, cl, krs); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			err = fmt.Errorf("not acknowledged within %v: %w", p.opts.Timeout, err)
		}
		return fmt.Errorf("kafka: append %d records: %w", len(recs), classify(err))
	}
	return nil
}

// produce hands krs to cl and waits until every one is acknowledged, ctx
// ends, or a dial fails and a probe finds no broker. A record already
// sent cannot be failed until the broker answers; the caller does not
// wait for it.
func (p *Producer) produce(ctx context.Context, cl *kgo.Client, krs []*kgo.Record) error {
	failed := p.reach.failedDial()
	done := make(chan error, 1)
	go func() { done <- cl.ProduceSync(ctx, krs...).FirstErr() }()
	for {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-failed:
			if err := p.reach.probe(ctx, cl); err != nil {
				return fmt.Errorf("no broker answers: %w", err)
			}
			failed = p.reach.failedDial()
		}
	}
}

// refused lists Kafka's answers that retrying the same records cannot
// change.
var refused = []error{
	kerr.MessageTooLarge, kerr.RecordListTooLarge, kerr.InvalidRecord, kerr.CorruptMessage,
	kerr.InvalidTopicException, kerr.TopicAuthorizationFailed, kerr.ClusterAuthorizationFailed,
	kerr.InvalidRequiredAcks, kerr.InvalidTimestamp, kerr.UnsupportedForMessageFormat,
}

// classify wraps err with eventlog.ErrUnavailable unless it is a refusal.
func classify(err error) error {
	for _, r := range refused {
		if errors.Is(err, r) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", eventlog.ErrUnavailable, err)
}

// EnsureTopics creates the topic of every kind under prefix, with
// partitions partitions and replication replicas (-1 for either: the
// broker's default), unless it exists. It is idempotent. Errors from an
// unreachable cluster wrap eventlog.ErrUnavailable.
func EnsureTopics(ctx context.Context, cl *kgo.Client, prefix string, partitions int32, replication int16) error {
	topics := make([]string, len(eventlog.Kinds))
	for i, k := range eventlog.Kinds {
		topics[i] = Topic(prefix, k)
	}
	resp, err := kadm.NewClient(cl).CreateTopics(ctx, partitions, replication, nil, topics...)
	if err != nil {
		return fmt.Errorf("kafka: create topics: %w", classify(err))
	}
	for _, t := range topics {
		r, ok := resp[t]
		switch {
		case !ok:
			return fmt.Errorf("kafka: create topic %s: no answer", t)
		case r.Err == nil, errors.Is(r.Err, kerr.TopicAlreadyExists):
		default:
			return fmt.Errorf("kafka: create topic %s: %w (%s)", t, r.Err, r.ErrMessage)
		}
	}
	return nil
}
