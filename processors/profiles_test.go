package processors

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// memProfiles is a ProfileStore in memory that keeps snapshots as their
// stored text, so that nothing is shared with the caller.
type memProfiles struct {
	mu    sync.Mutex
	saved map[analytics.ProfileKey][2]string
}

func (m *memProfiles) LoadProfiles(_ context.Context, keys []analytics.ProfileKey) (map[analytics.ProfileKey]*analytics.ProfileSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[analytics.ProfileKey]*analytics.ProfileSnapshot{}
	for _, k := range keys {
		if t, ok := m.saved[k]; ok {
			s := &analytics.ProfileSnapshot{Key: k}
			if err := s.Decode(t[0], t[1]); err != nil {
				return nil, err
			}
			out[k] = s
		}
	}
	return out, nil
}

func (m *memProfiles) SaveProfiles(_ context.Context, snaps []*analytics.ProfileSnapshot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saved == nil {
		m.saved = map[analytics.ProfileKey][2]string{}
	}
	for _, s := range snaps {
		p, o, err := s.Encode()
		if err != nil {
			return err
		}
		m.saved[s.Key] = [2]string{p, o}
	}
	return nil
}

// TestProfileBatchReplay folds batches whose replays are cut differently,
// across two partitions and three hours, with the processor's cache of
// snapshots: each event is profiled once.
func TestProfileBatchReplay(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	var events []positioned
	for i := range 200 {
		p := eventlog.Prediction{OrgID: "o", ModelID: "m", PredictionID: fmt.Sprint(i),
			InputData:  json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)),
			OutputData: json.RawMessage(`{"y":"a"}`), Timestamp: at.Add(time.Duration(i) * 30 * time.Second)}
		events = append(events, positioned{p, analytics.Position{Partition: int32(i % 2), Offset: int64(i / 2)}})
	}
	store := &memProfiles{}
	ctx := context.Background()
	// The cache folds contiguous batches in memory and loads after a
	// replay; a new epoch (a rebalance) loads too.
	cache := &profileCache{}
	for _, cut := range [][2]int{{0, 80}, {80, 120}, {50, 120}, {120, 160}, {160, 200}, {0, 200}, {150, 200}, {10, 20}} {
		batch := append([]positioned(nil), events[cut[0]:cut[1]]...)
		if err := profileBatch(ctx, store, batch, cache); err != nil {
			t.Fatal(err)
		}
	}
	var rows int64
	for _, hour := range []time.Time{at.Truncate(time.Hour), at.Truncate(time.Hour).Add(time.Hour), at.Truncate(time.Hour).Add(2 * time.Hour)} {
		snaps, err := store.LoadProfiles(ctx, []analytics.ProfileKey{{OrgID: "o", ModelID: "m", Side: analytics.SideInput, Hour: hour}, {OrgID: "o", ModelID: "m", Side: analytics.SideOutput, Hour: hour}})
		if err != nil {
			t.Fatal(err)
		}
		in, out := snaps[analytics.ProfileKey{OrgID: "o", ModelID: "m", Side: analytics.SideInput, Hour: hour}], snaps[analytics.ProfileKey{OrgID: "o", ModelID: "m", Side: analytics.SideOutput, Hour: hour}]
		if in == nil || out == nil || in.Profile.Rows != out.Profile.Rows || in.Profile.Features["x"].Values() != in.Profile.Rows {
			t.Fatalf("hour %v: got input %+v, output %+v; want equal rows, every x counted", hour, in, out)
		}
		rows += in.Profile.Rows
	}
	if rows != 200 {
		t.Fatalf("got %d rows profiled over both hours, want 200: each event once", rows)
	}
}

// TestProfileCacheNewEpoch folds on two replicas with caches: a takes the
// first batch, the partition moves to b, which folds the next one and
// crashes before its commit, and comes back to a (a new epoch), which
// reads the same records again and goes on: each event is profiled once.
func TestProfileCacheNewEpoch(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	batch := func(lo, hi int, epoch uint64) []positioned {
		var out []positioned
		for i := lo; i < hi; i++ {
			p := eventlog.Prediction{OrgID: "o", ModelID: "m", PredictionID: fmt.Sprint(i),
				InputData: json.RawMessage(`{"x":1}`), OutputData: json.RawMessage(`{}`), Timestamp: at}
			out = append(out, positioned{p, analytics.Position{Offset: int64(i), Epoch: epoch}})
		}
		return out
	}
	store, ctx := &memProfiles{}, context.Background()
	a, b := &profileCache{}, &profileCache{}
	for _, step := range []struct {
		cache *profileCache
		ps    []positioned
	}{{a, batch(0, 10, 1)}, {b, batch(10, 20, 1)}, {a, batch(10, 20, 2)}, {a, batch(20, 30, 2)}} {
		if err := profileBatch(ctx, store, step.ps, step.cache); err != nil {
			t.Fatal(err)
		}
	}
	k := analytics.ProfileKey{OrgID: "o", ModelID: "m", Side: analytics.SideInput, Hour: at}
	snaps, err := store.LoadProfiles(ctx, []analytics.ProfileKey{k})
	if err != nil || snaps[k] == nil || snaps[k].Profile.Rows != 30 {
		t.Fatalf("got %+v (%v), want 30 rows", snaps[k], err)
	}
}
