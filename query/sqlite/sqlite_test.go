package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/vigilhq/vigil/query/querytest"
	"github.com/vigilhq/vigil/query/sqlite"
)

func TestContract(t *testing.T) {
	querytest.Run(t, func(t *testing.T) querytest.Store {
		s, err := sqlite.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestFillHours(t *testing.T) {
	dir := t.TempDir()
	open := func(t *testing.T) querytest.Store {
		s, err := sqlite.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	querytest.FillHours(t, open(t), func(t *testing.T) {
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
