package eventlog

import "context"

// Message is one record read from the event log.
type Message struct {
	Kind  string
	Key   string
	Value []byte
	// Partition and Offset place the message in the log; Offset grows
	// within a partition.
	Partition int32
	Offset    int64
	// Epoch changes each time the consumer is assigned partitions anew
	// (a Kafka rebalance); always 0 on the embedded log, which has one
	// consumer per group. State a processor keeps in memory about a
	// partition (what it wrote last) is void across a change: another
	// replica may have written meanwhile.
	Epoch uint64
}

// Source is the consuming side of the event log: a Kafka consumer group
// (eventlog/kafka) or the embedded log (eventlog/embeddedlog). The
// processor polls a batch, writes it to the analytical store, and only then
// commits, so a crash between the two replays the batch rather than losing
// it (at-least-once; the store drops replays by event id).
type Source interface {
	// Poll blocks until messages are available or ctx ends and returns
	// them in log order per partition.
	Poll(ctx context.Context) ([]Message, error)
	// Commit records that every message returned by Poll so far is
	// processed; after a restart, reading resumes after them. Kafka: also
	// called when partitions are revoked.
	Commit(ctx context.Context) error
	// Close stops reading; uncommitted messages are read again later.
	Close() error
}

// PrefixCommitter is implemented by a Source that can commit part of what
// Poll returned, so that a processor may read and decode the next batch
// while it writes the one before. The embedded log and the Kafka source
// implement it.
type PrefixCommitter interface {
	// CommitThrough records that msgs, a batch Poll returned, and every
	// message returned before them are processed, and nothing returned
	// after them. It may run while a Poll waits in another goroutine.
	CommitThrough(ctx context.Context, msgs []Message) error
}
