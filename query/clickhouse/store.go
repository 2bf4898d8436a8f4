package clickhouse

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/schemas"
)

// Store is the analytical store on ClickHouse: the processors write it,
// the query API reads it.
type Store struct {
	conn driver.Conn
}

// New creates the tables if they are missing and returns the store.
func New(ctx context.Context, conn driver.Conn) (*Store, error) {
	files, err := fs.Glob(schemas.Analytics, "analytics/clickhouse/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		body, err := fs.ReadFile(schemas.Analytics, f)
		if err != nil {
			return nil, err
		}
		for _, stmt := range strings.Split(string(body), "\n;\n") {
			if strings.TrimSpace(stripComments(stmt)) == "" {
				continue
			}
			if err := conn.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("clickhouse schema %s: %w", f, err)
			}
		}
	}
	return &Store{conn: conn}, nil
}

// stripComments drops -- comment lines.
func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Ping checks the server answers.
func (s *Store) Ping(ctx context.Context) error { return Check(ctx, s.conn) }
