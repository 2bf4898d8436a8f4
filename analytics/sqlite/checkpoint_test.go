package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
)

// TestBackgroundCheckpoint: the pages a write appends to the write-ahead
// log reach the database file without another write, well before the
// automatic checkpoint's threshold, and Close stops the checkpointer.
func TestBackgroundCheckpoint(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	if err := s.Write(context.Background(), analytics.Batch{Predictions: benchBatch(0)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); size() == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("got the database file at %d bytes 10s after a write, want it grown: the write is still only in the log", before)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-s.ckpt.stopped:
	default:
		t.Fatal("the checkpointer runs after Close")
	}
}

// TestConcurrentWriters: the store's write transactions from many
// goroutines at once (batches and profile snapshots, as the processor's
// stages write them) all succeed through beginWrite's queue, each batch
// stored once, the checkpointer running beside them. (What the queue
// saves, the busy handler's sleeps, is a matter of time:
// benchmarks/history/issue-15.md.)
func TestConcurrentWriters(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 {
				if err := s.Write(ctx, analytics.Batch{Predictions: benchBatch(g*3 + i)}); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for i := range 3 {
				snap := &analytics.ProfileSnapshot{Key: analytics.ProfileKey{OrgID: "o1", ModelID: "m1", Side: analytics.SideInput,
					Hour: time.Date(2026, 3, 1, g, i, 0, 0, time.UTC).Truncate(time.Hour)}, Offsets: map[int32]int64{0: int64(i)}}
				if err := s.SaveProfiles(ctx, []*analytics.ProfileSnapshot{snap}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a writer failed: %v", err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM predictions`).Scan(&n); err != nil || n != 12000 {
		t.Fatalf("got %d predictions stored (%v), want 12000", n, err)
	}
}
