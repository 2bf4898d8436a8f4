package processors

import (
	"github.com/vigilhq/vigil/analytics"
)

// profileCache keeps the profile snapshots a processor saved, so that the
// next batch folds into them in memory instead of loading them again (a
// read per batch; ClickHouse's with FINAL). A model's records all come
// from one log partition (the log is keyed by organization and model),
// read by one processor at a time, so a snapshot changes only through the
// processor reading that partition. The cache trusts a snapshot only while
// this processor has read its partition without a gap since saving it, in
// the same consumer epoch (eventlog.Message.Epoch): the batch's lowest
// offset on the partition is the one past the highest it folded. A
// replay, a new assignment of partitions (a rebalance: another replica may
// have folded meanwhile, or crashed before its commit), or a failed load
// or save all make it load again. At
// most maxCachedProfiles snapshots are kept; beyond, it starts over.
type profileCache struct {
	snaps map[analytics.ProfileKey]*analytics.ProfileSnapshot
	// next is, per log partition, the offset past the highest folded, in
	// the consumer's epoch (eventlog.Message.Epoch).
	next  map[int32]int64
	epoch uint64
}

// maxCachedProfiles bounds the snapshots a profileCache keeps.
const maxCachedProfiles = 4096

func (c *profileCache) reset() {
	if c != nil {
		c.snaps, c.next = nil, nil
	}
}

// lookup returns the cached snapshots of keys, the caller's to fold into,
// and the keys to load: all of them unless ps, sorted by position, follow
// what the cache folded without a gap on each of their partitions.
func (c *profileCache) lookup(keys map[analytics.ProfileKey]bool, ps []positioned) (map[analytics.ProfileKey]*analytics.ProfileSnapshot, []analytics.ProfileKey) {
	snaps := make(map[analytics.ProfileKey]*analytics.ProfileSnapshot, len(keys))
	fresh := c != nil && c.snaps != nil
	if fresh {
		low := map[int32]int64{}
		for _, e := range ps {
			if _, ok := low[e.pos.Partition]; !ok {
				low[e.pos.Partition] = e.pos.Offset
			}
		}
		for part, off := range low {
			if next, ok := c.next[part]; !ok || next != off {
				fresh = false
			}
		}
		for _, e := range ps {
			fresh = fresh && e.pos.Epoch == c.epoch
		}
	}
	var load []analytics.ProfileKey
	for k := range keys {
		if s, ok := c.cached(k); ok && fresh {
			snaps[k] = s
		} else {
			load = append(load, k)
		}
	}
	return snaps, load
}

func (c *profileCache) cached(k analytics.ProfileKey) (*analytics.ProfileSnapshot, bool) {
	if c == nil {
		return nil, false
	}
	s, ok := c.snaps[k]
	return s, ok
}

// saved records the snapshots a batch left stored and the offsets it
// folded up to.
func (c *profileCache) saved(snaps map[analytics.ProfileKey]*analytics.ProfileSnapshot, ps []positioned) {
	if c == nil {
		return
	}
	if len(ps) == 0 {
		return
	}
	if epoch := ps[0].pos.Epoch; c.snaps == nil || epoch != c.epoch || len(c.snaps)+len(snaps) > maxCachedProfiles {
		c.snaps, c.next, c.epoch = map[analytics.ProfileKey]*analytics.ProfileSnapshot{}, map[int32]int64{}, epoch
	}
	for k, s := range snaps {
		c.snaps[k] = s
	}
	for _, e := range ps {
		c.next[e.pos.Partition] = max(c.next[e.pos.Partition], e.pos.Offset+1)
	}
}
