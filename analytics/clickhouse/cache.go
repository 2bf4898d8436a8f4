package clickhouse

import (
	"maps"
	"slices"
	"sync"

	"github.com/vigilhq/vigil/analytics"
)

// rollupCache keeps the newest prediction buckets this Store wrote for
// each model (cachedBuckets per resolution), so that the next batch adds
// to them in memory instead of reading their newest versions back (a FINAL
// read per model, resolution and batch): a bucket is read once, when a
// batch first touches it (a new minute, an evicted one).
//
// A model's records all come from one log partition (the log is keyed by
// organization and model), and a partition is read by one consumer at a
// time. The cache trusts a model's buckets only while this Store has read
// that partition without a gap, in the same consumer epoch
// (eventlog.Message.Epoch): the batch's lowest offset on it is the one
// past the highest this Store wrote. A replay (a crash, a failed commit),
// a new assignment of partitions (a rebalance: another replica may have
// written meanwhile, or crashed before its commit), events filtered out
// ahead of the store, or a failed write all break that, and the buckets
// are read again.
//
// It also keeps, per model and resolution, the newest bucket start known
// to be stored (read once when the cache is not fresh for the model, then
// moved by what this Store writes): under the same rule no one else
// stores a bucket of the model, so a bucket after it is new and starts
// empty, unread. A stream whose events move forward in time then reads
// no rollup at all; a late event of an older bucket not cached is read.
type rollupCache struct {
	mu sync.Mutex
	// models holds, per model and resolution, the buckets written last.
	models map[modelKey][len(resolutions)]map[int64]*counted
	// newest holds, per model and resolution, the newest bucket start
	// stored (0: none).
	newest map[modelKey][len(resolutions)]int64
	// next is, per log partition, the offset past the highest this Store
	// wrote, and the consumer's epoch (eventlog.Message.Epoch) then.
	next  map[int32]int64
	epoch uint64
}

// reset forgets everything: the next batch reads its buckets.
func (c *rollupCache) reset() { c.models, c.next, c.newest = nil, nil, nil }

// buckets returns the cached buckets of resolution i of model k among
// starts, and the starts it holds not (or not fresh). fresh says whether
// the cache was trusted; then newest is the model's newest stored start,
// and a start after it is new (stored nowhere). The buckets returned are
// the cache's own, added to in place; a failed write resets the cache.
func (c *rollupCache) buckets(i int, k modelKey, starts map[int64]bool, ps []labeled,
	positions map[analytics.EventKey]analytics.Position) (found map[int64]*counted, missing []int64, newest int64, fresh bool) {
	found = make(map[int64]*counted, len(starts))
	cached := c.models[k][i]
	fresh = cached != nil && c.fresh(ps, positions)
	newest = c.newest[k][i]
	for start := range starts {
		if b, ok := cached[start]; ok && fresh {
			found[start] = b
		} else {
			missing = append(missing, start)
		}
	}
	return found, missing, newest, fresh
}

// fresh reports whether every prediction of ps comes from a partition this
// Store read without a gap up to the batch.
func (c *rollupCache) fresh(ps []labeled, positions map[analytics.EventKey]analytics.Position) bool {
	low := lowest(positions)
	for _, p := range ps {
		pos, ok := positions[analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}]
		if !ok {
			return false
		}
		if next, ok := c.next[pos.Partition]; !ok || low[pos.Partition] != next || pos.Epoch != c.epoch {
			return false
		}
	}
	return true
}

// wrote records the buckets a successful write left as the newest, and the
// offsets it reached. A batch of a new epoch (the consumer was assigned
// partitions anew) starts the cache over from what it wrote.
func (c *rollupCache) wrote(written map[modelKey][len(resolutions)]map[int64]*counted, newest map[modelKey][len(resolutions)]int64,
	positions map[analytics.EventKey]analytics.Position) {
	var epoch uint64
	for _, p := range positions {
		epoch = p.Epoch
		break
	}
	if len(positions) == 0 {
		return
	}
	if c.models == nil || epoch != c.epoch {
		c.models, c.next, c.epoch = map[modelKey][len(resolutions)]map[int64]*counted{}, map[int32]int64{}, epoch
		c.newest = map[modelKey][len(resolutions)]int64{}
	}
	for k, n := range newest {
		c.newest[k] = n
	}
	for k, w := range written {
		cached := c.models[k]
		for i := range w {
			if cached[i] == nil {
				cached[i] = map[int64]*counted{}
			}
			maps.Copy(cached[i], w[i])
			keepNewest(cached[i], cachedBuckets)
		}
		c.models[k] = cached
	}
	for part, off := range highest(positions) {
		c.next[part] = off + 1
	}
}

// cachedBuckets is how many buckets of each model and resolution the
// cache keeps: the newest.
const cachedBuckets = 8

// keepNewest drops all but the n newest buckets of m, in one sort: a
// batch from a backlog may leave thousands of buckets.
func keepNewest(m map[int64]*counted, n int) {
	if len(m) <= n {
		return
	}
	starts := slices.Sorted(maps.Keys(m))
	for _, start := range starts[:len(starts)-n] {
		delete(m, start)
	}
}

// lowest and highest are the extreme offsets of positions per partition.
func lowest(positions map[analytics.EventKey]analytics.Position) map[int32]int64 {
	return extreme(positions, func(a, b int64) bool { return a < b })
}

func highest(positions map[analytics.EventKey]analytics.Position) map[int32]int64 {
	return extreme(positions, func(a, b int64) bool { return a > b })
}

func extreme(positions map[analytics.EventKey]analytics.Position, better func(a, b int64) bool) map[int32]int64 {
	out := map[int32]int64{}
	for _, p := range positions {
		if cur, ok := out[p.Partition]; !ok || better(p.Offset, cur) {
			out[p.Partition] = p.Offset
		}
	}
	return out
}
