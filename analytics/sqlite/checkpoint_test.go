package sqlite

import (
	"context"
	"os"
	"path/filepath"
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
