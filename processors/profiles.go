package processors

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// positioned is a prediction with where the log holds it.
type positioned struct {
	p   eventlog.Prediction
	pos analytics.Position
}

// profileBatch folds predictions into their hourly input and output
// profiles (an output profile also tallies labelled predictions against
// their labels, profile.Quality): it loads the snapshots the batch touches, adds each
// prediction above the snapshot's offset on its partition, and saves the
// snapshots it changed. Run before the batch is committed, so that a
// crash replays what was not saved, and the offsets skip what was.
//
// cache, when not nil, keeps the snapshots saved, so that the next batch
// folds into them without loading them again (profileCache).
func profileBatch(ctx context.Context, store analytics.ProfileStore, ps []positioned, cache *profileCache) error {
	if len(ps) == 0 {
		return nil
	}
	// Offsets only grow along a partition: fold events in log order.
	slices.SortStableFunc(ps, func(a, b positioned) int {
		return cmp.Or(cmp.Compare(a.pos.Partition, b.pos.Partition), cmp.Compare(a.pos.Offset, b.pos.Offset))
	})
	keys := map[analytics.ProfileKey]bool{}
	for _, e := range ps {
		for _, side := range []string{analytics.SideInput, analytics.SideOutput} {
			keys[key(e.p, side)] = true
		}
	}
	snaps, list := cache.lookup(keys, ps)
	if len(list) > 0 {
		loaded, err := store.LoadProfiles(ctx, list)
		if err != nil {
			cache.reset()
			return fmt.Errorf("load profiles: %w", err)
		}
		maps.Copy(snaps, loaded)
	}
	changed := map[analytics.ProfileKey]*analytics.ProfileSnapshot{}
	for _, e := range ps {
		for _, side := range []string{analytics.SideInput, analytics.SideOutput} {
			k := key(e.p, side)
			s := snaps[k]
			if s == nil {
				s = &analytics.ProfileSnapshot{Key: k}
				snaps[k] = s
			}
			if last, ok := s.Offsets[e.pos.Partition]; ok && e.pos.Offset <= last {
				continue
			}
			if side == analytics.SideOutput {
				s.Profile.AddFields(e.p.Fields().Output)
				s.Profile.Quality.Add(e.p.Predicted(), e.p.Label())
			} else {
				s.Profile.AddFields(e.p.Fields().Input)
			}
			if s.Offsets == nil {
				s.Offsets = map[int32]int64{}
			}
			s.Offsets[e.pos.Partition] = e.pos.Offset
			changed[k] = s
		}
	}
	if len(changed) > 0 {
		out := make([]*analytics.ProfileSnapshot, 0, len(changed))
		for _, s := range changed {
			out = append(out, s)
		}
		if err := store.SaveProfiles(ctx, out); err != nil {
			cache.reset()
			return fmt.Errorf("save profiles: %w", err)
		}
	}
	cache.saved(snaps, ps)
	return nil
}

func key(p eventlog.Prediction, side string) analytics.ProfileKey {
	return analytics.ProfileKey{OrgID: p.OrgID, ModelID: p.ModelID, Side: side, Hour: p.Timestamp.UTC().Truncate(time.Hour)}
}
