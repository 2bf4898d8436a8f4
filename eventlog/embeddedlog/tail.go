package embeddedlog

import (
	"slices"
	"sync"

	"github.com/vigilhq/vigil/eventlog"
)

// Defaults of the tail's bounds (Options.TailRecords, Options.TailBytes).
const (
	DefaultTailRecords = 1 << 16
	DefaultTailBytes   = 32 << 20
)

// tail keeps the records this process committed last, so that a consumer
// group close behind the head is handed them from memory instead of
// reading them back from the file (the same process holds both the writer
// and the readers). Only committed (fsynced) records enter it, in commit
// order, so that a consumer sees exactly what it would read from the
// file: the tail holds one contiguous run of sequence numbers; when a
// commit does not continue it (a record written by another process), the
// run restarts there. Its bounds (records and bytes of keys and values)
// drop the oldest records first; a consumer further behind reads the file.
// Values are copies (Append keeps no reference to the caller's records)
// shared read-only by every group's messages.
type tail struct {
	maxRecords, maxBytes int

	mu    sync.RWMutex
	ring  []tailRecord // ring[seq % len(ring)]
	first int64        // sequence number of the oldest record kept (0: empty)
	last  int64        // sequence number of the newest
	bytes int
}

type tailRecord struct {
	kind, key string
	value     []byte
}

func newTail(maxRecords, maxBytes int) *tail {
	if maxRecords <= 0 || maxBytes <= 0 {
		return &tail{} // disabled
	}
	return &tail{maxRecords: maxRecords, maxBytes: maxBytes, ring: make([]tailRecord, maxRecords)}
}

// publish adds recs, committed with the sequence numbers first, first+1,
// ...: called by the writer after the commit, before waking the readers.
func (t *tail) publish(first int64, recs []tailRecord) {
	if len(t.ring) == 0 || len(recs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first != 0 && first != t.last+1 {
		t.reset()
	}
	if len(recs) > t.maxRecords {
		t.reset()
		first += int64(len(recs) - t.maxRecords)
		recs = recs[len(recs)-t.maxRecords:]
	}
	if t.first == 0 {
		t.first = first
	}
	for i, r := range recs {
		seq := first + int64(i)
		// Room first: the slot of seq is the oldest record's when full.
		for seq-t.first+1 > int64(t.maxRecords) || (t.bytes+r.size() > t.maxBytes && t.first < seq) {
			t.drop()
		}
		t.ring[seq%int64(len(t.ring))] = r
		t.bytes += r.size()
		t.last = seq
	}
}

func (t *tail) drop() {
	slot := &t.ring[t.first%int64(len(t.ring))]
	t.bytes -= slot.size()
	*slot = tailRecord{}
	t.first++
}

func (t *tail) reset() {
	for t.first != 0 && t.first <= t.last {
		t.drop()
	}
	t.first, t.last, t.bytes = 0, 0, 0
}

func (r tailRecord) size() int { return len(r.key) + len(r.value) }

// holdsThrough reports whether pos is the newest record the tail holds:
// every record this process committed up to now has been read by a
// consumer at pos.
func (t *tail) holdsThrough(pos int64) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.first != 0 && pos == t.last
}

// read returns, when the tail holds the record after pos, up to max
// messages after pos (only those of kinds when kinds is set) and the
// sequence number of the last record stepped over; ok is false when the
// tail does not hold it (the caller reads the file).
func (t *tail) read(pos int64, max int, kinds []string) (msgs []eventlog.Message, last int64, ok bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.first == 0 || pos+1 < t.first || pos+1 > t.last {
		return nil, pos, false
	}
	end := min(t.last, pos+int64(max))
	msgs = make([]eventlog.Message, 0, end-pos)
	for seq := pos + 1; seq <= end; seq++ {
		r := &t.ring[seq%int64(len(t.ring))]
		if len(kinds) > 0 && !slices.Contains(kinds, r.kind) {
			continue
		}
		msgs = append(msgs, eventlog.Message{Kind: r.kind, Key: r.key, Value: r.value, Offset: seq})
	}
	return msgs, end, true
}
