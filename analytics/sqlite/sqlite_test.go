package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/vigilhq/vigil/analytics/analyticstest"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/processors/processortest"
)

// fresh opens a store in a folder of its own.
func fresh(t *testing.T) analyticstest.Store {
	s, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) { analyticstest.Run(t, fresh) }

// TestProcessor runs the processor over the store: poison events set
// aside, retried writes.
func TestProcessor(t *testing.T) { processortest.Run(t, fresh) }

func TestFillHours(t *testing.T) {
	dir := t.TempDir()
	open := func(t *testing.T) analyticstest.Store {
		s, err := sqlite.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	analyticstest.FillHours(t, open(t), func(t *testing.T) {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, table := range []string{"prediction_hours", "metric_hours", "completion_hours"} {
			if _, err := db.Exec(`DELETE FROM ` + table); err != nil {
				t.Fatal(err)
			}
		}
	}, open)
}
