package eventlog

import "context"

// Partition names one partition of one kind's topic. The embedded log
// has a single partition for every kind: Kind "" and Partition 0.
type Partition struct {
	Kind      string
	Partition int32
}

// Offsets maps partitions to a next offset: for a log's end, the offset
// the next record appended to the partition will get; for a consumer
// group, the first offset it has not committed.
type Offsets map[Partition]int64

// Covers reports whether committed, a consumer group's offsets, has
// reached end, a log's end read earlier: the group has processed every
// record appended before end was read. A partition missing from committed
// counts as offset 0, so an empty partition is covered by nothing at all.
func (committed Offsets) Covers(end Offsets) bool {
	for p, off := range end {
		if committed[p] < off {
			return false
		}
	}
	return true
}

// Progress reads how far a log has been written and how far a consumer
// group has processed it, so that a reader can tell when every record
// appended before a moment has been processed: read End at the moment,
// then wait until Committed covers it. Both engines implement it
// (embeddedlog.Log, kafka.Progress); errors are retryable.
type Progress interface {
	// End returns the log's end now for the topics of kinds.
	End(ctx context.Context, kinds ...string) (Offsets, error)
	// Committed returns group's committed offsets on the topics of kinds.
	Committed(ctx context.Context, group string, kinds ...string) (Offsets, error)
}
