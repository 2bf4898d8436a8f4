package clickhouse

import (
	"context"
	"fmt"
	"sync"

	"github.com/ClickHouse/clickhouse-go/v2/lib/cityhash102"

	"github.com/vigilhq/vigil/analytics"
)

// idFilter is a Bloom filter of one model's stored prediction ids, by
// their CityHash64 (the hash ClickHouse's cityHash64 computes, so a load
// hashes on the server and sends 8 bytes an id). It answers "maybe
// stored" for every id it was given and, wrongly, for about
// idFilterFalseRate of the others; it never answers "not stored" for an
// id it holds, so an id it rules out needs no read. It is blocked: an id's
// bits all lie in one 512-bit block (a cache line), so adding or testing
// one touches one line of memory, not idFilterProbes of them (a load of 5
// million ids: 0.88 s of CPU, 1.25 s unblocked).
type idFilter struct {
	blocks [][8]uint64
	// epoch is the consumer's epoch (eventlog.Message.Epoch) of the batch
	// it was loaded for: the filter is trusted for batches of that epoch.
	epoch    uint64
	held     int // ids added
	capacity int // ids it holds at idFilterFalseRate; past it, it is loaded anew
}

// The filter's shape: 24 bits and 8 probes an id, in blocks, give a false
// "maybe" for about 1 id in 10,000 when full (1.3 in 10,000 measured, fewer
// before), so a 1000-prediction batch reads ClickHouse in about one batch
// of ten.
const (
	idFilterFalseRate   = 1e-4
	idFilterBitsPerID   = 24
	idFilterProbes      = 8
	idFilterMinCapacity = 1 << 12
)

// newIDFilter returns a filter for ids stored now, with room to double.
func newIDFilter(stored int) *idFilter {
	return &idFilter{blocks: make([][8]uint64, idFilterSize(stored)/64), capacity: max(2*stored, idFilterMinCapacity)}
}

// idFilterSize is the bytes of a filter for ids stored now.
func idFilterSize(stored int) int {
	capacity := max(2*stored, idFilterMinCapacity)
	return (capacity*idFilterBitsPerID + 511) / 512 * 64
}

// idHash is ClickHouse's cityHash64 of id.
func idHash(id string) uint64 {
	return cityhash102.CityHash64([]byte(id), uint32(len(id)))
}

// probes calls each with the bits of h in its block, until each returns
// false: the block from h's high half, each bit from 9 bits of its own of
// a remix of h (seven from each 64-bit remix), so that two ids in one
// block share all their bits only by a chance of 2^-72.
func (f *idFilter) probes(h uint64, each func(block *[8]uint64, bit uint32) bool) bool {
	block := &f.blocks[(h>>32)*uint64(len(f.blocks))>>32]
	g := h
	for i := range idFilterProbes {
		if i%7 == 0 {
			g = remix(g)
		}
		if !each(block, uint32(g&511)) {
			return false
		}
		g >>= 9
	}
	return true
}

// remix is SplitMix64's finalizer.
func remix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (f *idFilter) add(h uint64) {
	f.probes(h, func(b *[8]uint64, bit uint32) bool { b[bit/64] |= 1 << (bit % 64); return true })
	f.held++
}

func (f *idFilter) mayHold(h uint64) bool {
	return f.probes(h, func(b *[8]uint64, bit uint32) bool { return b[bit/64]&(1<<(bit%64)) != 0 })
}

func (f *idFilter) size() int { return len(f.blocks) * 64 }

// full reports whether the filter holds more ids than it was sized for.
func (f *idFilter) full() bool { return f.held > f.capacity }

// DefaultIDFilterBytes bounds the memory of a Store's id filters (see
// Store.IDFilterBytes): 256 MiB hold about 45 million stored ids at the
// filters' false rate, sized to double.
const DefaultIDFilterBytes = 256 << 20

// idFilters holds the id filters of the models a Store writes, the least
// recently used dropped when a new one would pass the budget. Which
// filter may be trusted for a batch is the writer's call (Store.toRead).
type idFilters struct {
	mu     sync.Mutex
	models map[modelKey]*usedFilter
	bytes  int
	tick   uint64
}

type usedFilter struct {
	*idFilter
	used uint64
}

// candidates returns the ids among ids that k's filter may hold (those to
// read), and false when k has no filter for epoch (none, one loaded in
// another epoch, or one past its capacity).
func (fs *idFilters) candidates(k modelKey, epoch uint64, ids []string) ([]string, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	u := fs.models[k]
	if u == nil || u.epoch != epoch || u.full() {
		return nil, false
	}
	fs.tick++
	u.used = fs.tick
	var maybe []string
	for _, id := range ids {
		if u.mayHold(idHash(id)) {
			maybe = append(maybe, id)
		}
	}
	return maybe, true
}

// put keeps f as k's filter within budget bytes, dropping the least
// recently used others as needed; a filter larger than the budget is not
// kept.
func (fs *idFilters) put(k modelKey, f *idFilter, budget int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.dropLocked(k)
	if f.size() > budget {
		return
	}
	for fs.bytes+f.size() > budget {
		var oldest modelKey
		var at uint64 = 1<<64 - 1
		for mk, u := range fs.models {
			if u.used < at {
				oldest, at = mk, u.used
			}
		}
		fs.dropLocked(oldest)
	}
	if fs.models == nil {
		fs.models = map[modelKey]*usedFilter{}
	}
	fs.tick++
	fs.models[k] = &usedFilter{f, fs.tick}
	fs.bytes += f.size()
}

func (fs *idFilters) dropLocked(k modelKey) {
	if u := fs.models[k]; u != nil {
		fs.bytes -= u.size()
		delete(fs.models, k)
	}
}

// add records ids about to be stored for k in its filter, if it has one.
// It is called before the INSERT is sent: a filter may hold an id whose
// INSERT failed (a "maybe" that a read settles), never miss a stored one.
func (fs *idFilters) add(k modelKey, ids []string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if u := fs.models[k]; u != nil {
		for _, id := range ids {
			u.add(idHash(id))
		}
	}
}

// toRead returns the ids of keys (one model's predictions in a batch)
// that may be stored already, the ones classify reads: all of them when a
// prediction has no log position, the batch spans two consumer epochs, or
// the model has no filter within the budget; else those the model's filter
// may hold. A filter is trusted for the batches of the consumer epoch it
// was loaded in: a model's records all lie in one log partition, which one
// consumer reads at a time, and each assignment of partitions to a
// consumer starts a new epoch (eventlog.Message.Epoch), so within an epoch
// no other writer stores an id of the model. In a new epoch the filter is
// loaded anew, the cost of one read of the model's ids. (Gaps in the
// offsets, which make the rollup cache read its buckets back, do not
// matter here: events set aside or of other kinds store no prediction id.)
func (s *Store) toRead(ctx context.Context, k modelKey, keys []analytics.EventKey,
	positions map[analytics.EventKey]analytics.Position) ([]string, error) {
	ids := make([]string, len(keys))
	var epoch uint64
	usable := positions != nil
	for i, key := range keys {
		ids[i] = key.ID
		pos, ok := positions[key]
		if i == 0 {
			epoch = pos.Epoch
		}
		usable = usable && ok && pos.Epoch == epoch
	}
	budget := s.IDFilterBytes
	if budget == 0 {
		budget = DefaultIDFilterBytes
	}
	if !usable || budget < 0 {
		return ids, nil
	}
	if maybe, ok := s.filters.candidates(k, epoch, ids); ok {
		return maybe, nil
	}
	f, err := s.loadIDFilter(ctx, k, budget)
	if err != nil || f == nil {
		return ids, err
	}
	f.epoch = epoch
	s.filters.put(k, f, budget)
	if maybe, ok := s.filters.candidates(k, epoch, ids); ok {
		return maybe, nil
	}
	return ids, nil
}

// loadIDFilter reads the hashes of every id stored for k into a new
// filter: one count and one read of 8 bytes an id. It returns nil when the
// filter would take more than budget bytes.
func (s *Store) loadIDFilter(ctx context.Context, k modelKey, budget int) (*idFilter, error) {
	var stored uint64
	if err := s.conn.QueryRow(ctx, `SELECT count() FROM prediction_ids WHERE org_id = ? AND model_id = ?`,
		k.org, k.model).Scan(&stored); err != nil {
		return nil, fmt.Errorf("clickhouse id filter: %w", err)
	}
	if idFilterSize(int(stored)) > budget {
		return nil, nil
	}
	f := newIDFilter(int(stored))
	rows, err := s.conn.Query(ctx, `SELECT cityHash64(event_id) FROM prediction_ids WHERE org_id = ? AND model_id = ?`,
		k.org, k.model)
	if err != nil {
		return nil, fmt.Errorf("clickhouse id filter: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h uint64
		if err := rows.Scan(&h); err != nil {
			return nil, fmt.Errorf("clickhouse id filter: %w", err)
		}
		f.add(h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse id filter: %w", err)
	}
	return f, nil
}
