package sqlite_test

import (
	"context"
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
