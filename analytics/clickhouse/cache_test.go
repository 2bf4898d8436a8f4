package clickhouse

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// TestRollupCacheCountsOnce writes logged batches through two stores on
// one database, as two processor replicas between which a rebalance moves
// a partition, and replays batches after the fact: the rollups kept in
// memory count each prediction once, whichever store wrote it last, and a
// bucket the cache has not seen is read (a late prediction of an older
// minute).
func TestRollupCacheCountsOnce(t *testing.T) {
	conn := openConn(t)
	a, b, ctx := New(conn), New(conn), context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// batch is predictions lo..hi-1, at offsets lo..hi-1 of partition 3,
	// each at minute offset(i) from at.
	batch := func(lo, hi int, minute func(int) int) analytics.Batch {
		out := analytics.Batch{Positions: map[analytics.EventKey]analytics.Position{}}
		for i := lo; i < hi; i++ {
			lat := float64(i)
			p := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%03d", i),
				InputData: []byte(`{}`), OutputData: []byte(`{"y":1}`), Metadata: []byte(`{}`), LatencyMS: &lat,
				Timestamp: at.Add(time.Duration(minute(i)) * time.Minute)}
			out.Predictions = append(out.Predictions, p)
			out.Positions[analytics.EventKey{OrgID: "o1", ModelID: "m1", ID: p.PredictionID}] = analytics.Position{Partition: 3, Offset: int64(i)}
		}
		return out
	}
	now := func(int) int { return 5 }
	steps := []struct {
		s     *Store
		batch analytics.Batch
	}{
		{a, batch(0, 10, now)},
		{a, batch(10, 20, now)},                              // from a's cache
		{a, batch(10, 20, now)},                              // a replay: read back, nothing counted again
		{b, batch(20, 30, now)},                              // the partition moved to b
		{a, batch(30, 40, now)},                              // and back to a, whose cache is behind: read back
		{a, batch(40, 50, func(i int) int { return i % 3 })}, // late predictions of older minutes
		{a, batch(50, 60, now)},
	}
	for i, st := range steps {
		if err := st.s.Write(ctx, st.batch); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	r := analytics.Range{From: at, To: at.Add(time.Hour)}
	st, err := a.PredictionStats(ctx, "o1", "m1", r)
	if err != nil || st.TotalPredictions != 60 {
		t.Fatalf("got %d predictions (%v), want 60", st.TotalPredictions, err)
	}
	min5 := analytics.Range{From: at.Add(5 * time.Minute), To: at.Add(6 * time.Minute)}
	if st, err := b.PredictionStats(ctx, "o1", "m1", min5); err != nil || st.TotalPredictions != 50 {
		t.Fatalf("minute 5: got %d predictions (%v), want 50", st.TotalPredictions, err)
	}
}

// TestNewBucketsUnread: a stream moving forward in time writes its new
// minutes and hours without reading a rollup back, while a bucket stored
// before the store's first batch (by another replica, or before a
// restart), even one ahead of the stream, is still read and added to.
func TestNewBucketsUnread(t *testing.T) {
	conn := openConn(t)
	counter := &countingConn{Conn: conn}
	ctx, at := context.Background(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// batch is one prediction a minute for minutes, at offsets from first.
	batch := func(epoch uint64, first int, minutes ...int) analytics.Batch {
		out := analytics.Batch{Positions: map[analytics.EventKey]analytics.Position{}}
		for i, m := range minutes {
			p := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%d", first+i), InputData: []byte(`{}`),
				OutputData: []byte(`{}`), Metadata: []byte(`{}`), Timestamp: at.Add(time.Duration(m) * time.Minute)}
			out.Predictions = append(out.Predictions, p)
			out.Positions[analytics.EventKey{OrgID: "o1", ModelID: "m1", ID: p.PredictionID}] = analytics.Position{Offset: int64(first + i), Epoch: epoch}
		}
		return out
	}
	// An earlier writer stored minute 7 (an event ahead of the others).
	if err := New(conn).Write(ctx, batch(1, 0, 7)); err != nil {
		t.Fatal(err)
	}
	s := New(counter)
	steps := []struct {
		name        string
		batch       analytics.Batch
		rollupReads bool
	}{
		{"the first batch reads what is stored", batch(2, 1, 1, 2), true},
		{"new minutes after the newest stored are read, minute 7 is", batch(2, 3, 3, 7), true},
		{"new minutes after minute 7", batch(2, 5, 8, 9, 10), false},
		{"a minute cached", batch(2, 8, 10), false},
	}
	for _, st := range steps {
		counter.reset()
		if err := s.Write(ctx, st.batch); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := counter.rollupReads.Load(); !st.rollupReads && got != 0 {
			t.Errorf("%s: got %d reads of the rollups, want none", st.name, got)
		}
	}
	for minute, want := range map[int]int{1: 1, 2: 1, 3: 1, 7: 2, 8: 1, 10: 2} {
		r := analytics.Range{From: at.Add(time.Duration(minute) * time.Minute), To: at.Add(time.Duration(minute+1) * time.Minute)}
		if st, err := s.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != int64(want) {
			t.Errorf("minute %d: got %d predictions (%v), want %d", minute, st.TotalPredictions, err, want)
		}
	}
	hour := analytics.Range{From: at, To: at.Add(time.Hour)}
	if st, err := s.PredictionStats(ctx, "o1", "m1", hour); err != nil || st.TotalPredictions != 9 {
		t.Errorf("the hour: got %d predictions (%v), want 9", st.TotalPredictions, err)
	}
}

// TestLateEventOfEvictedBucket: a bucket this store created, then evicted
// from its cache by newer ones, is read back when a late event falls in
// it, not started over (which would replace its stored count).
func TestLateEventOfEvictedBucket(t *testing.T) {
	conn := openConn(t)
	s, ctx, at := New(conn), context.Background(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	offset := 0
	write := func(minute int) {
		t.Helper()
		p := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%d", offset), InputData: []byte(`{}`),
			OutputData: []byte(`{}`), Metadata: []byte(`{}`), Timestamp: at.Add(time.Duration(minute) * time.Minute)}
		b := analytics.Batch{Predictions: []eventlog.Prediction{p},
			Positions: map[analytics.EventKey]analytics.Position{{OrgID: "o1", ModelID: "m1", ID: p.PredictionID}: {Offset: int64(offset), Epoch: 1}}}
		offset++
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for minute := range 2 * cachedBuckets {
		write(minute)
	}
	write(1) // late: minute 1 left the cache long ago
	r := analytics.Range{From: at.Add(time.Minute), To: at.Add(2 * time.Minute)}
	if st, err := s.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != 2 {
		t.Errorf("minute 1: got %d predictions (%v), want 2", st.TotalPredictions, err)
	}
}
