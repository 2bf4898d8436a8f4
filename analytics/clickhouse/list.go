package clickhouse

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/ext"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
)

// A list of values that a query filters on (a batch's ids, the minutes it
// touched, the models of a dashboard) goes to ClickHouse as external
// data: a temporary table sent beside the query, which the query names
// (`event_id IN batch_ids`). A bound parameter would be written into the
// query's text by the driver, and ClickHouse refuses a text longer than
// max_query_size (256 KiB by default, in 18.16 as in current releases):
// a batch of a few thousand ids once wedged the processor on it (issue
// 33). So no query's text grows with a batch; the lists do not count
// against max_query_size, and IN over a set uses the primary key.
type list struct {
	// name is the table's name in the query; its one column is v.
	name string
	typ  column.Type
}

// The lists the store's queries name.
var (
	// idList holds event ids.
	idList = list{"batch_ids", "String"}
	// startList holds bucket starts (Unix microseconds).
	startList = list{"batch_starts", "Int64"}
	// modelList holds model ids.
	modelList = list{"listed_models", "String"}
)

// in is the SQL test that expr is one of the list's values.
func (l list) in(expr string) string { return expr + " IN " + l.name }

// withList returns ctx carrying values as l for the queries made with
// it. Each query made with ctx sends the list again; a ctx must carry no
// list of the same name already.
func withList[T string | int64](ctx context.Context, l list, values []T) (context.Context, error) {
	t, err := ext.NewTable(l.name, ext.Column("v", l.typ))
	if err != nil {
		return nil, fmt.Errorf("clickhouse list %s: %w", l.name, err)
	}
	for _, v := range values {
		if err := t.Append(v); err != nil {
			return nil, fmt.Errorf("clickhouse list %s: %w", l.name, err)
		}
	}
	return clickhouse.Context(ctx, clickhouse.WithExternalTable(t)), nil
}
