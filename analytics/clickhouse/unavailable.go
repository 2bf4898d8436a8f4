package clickhouse

import (
	"context"
	"errors"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/vigilhq/vigil/store"
)

// ClickHouse error codes that say the server is overloaded or lost a
// connection of its own: retrying later may succeed.
var retryCodes = map[int32]bool{
	202: true, // TOO_MANY_SIMULTANEOUS_QUERIES
	209: true, // SOCKET_TIMEOUT
	210: true, // NETWORK_ERROR
}

// unavailable reports whether err means ClickHouse cannot answer now: it
// is unreachable, the connection broke, no connection could be had in
// time, or the server said to come back later.
func unavailable(err error) bool {
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		return retryCodes[ex.Code]
	}
	return store.Unreachable(err) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, clickhouse.ErrAcquireConnTimeout) || errors.Is(err, clickhouse.ErrConnectionClosed)
}

// classify marks err as store.ErrUnavailable when it is unavailable; other
// errors, nil included, are returned as they are.
func classify(err error) error {
	if err != nil && unavailable(err) {
		return store.Unavailable(err)
	}
	return err
}

// classified is a driver.Conn whose errors say whether to retry: those that mean
// ClickHouse cannot answer now wrap store.ErrUnavailable, which the API
// answers with 503 and Retry-After. Every read and write of the store goes
// through it, so no call site has to classify.
type classified struct{ driver.Conn }

func (c classified) Select(ctx context.Context, dest any, q string, args ...any) error {
	return classify(c.Conn.Select(ctx, dest, q, args...))
}

func (c classified) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	r, err := c.Conn.Query(ctx, q, args...)
	if err != nil {
		return nil, classify(err)
	}
	return rows{r}, nil
}

func (c classified) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	return row{c.Conn.QueryRow(ctx, q, args...)}
}

func (c classified) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	b, err := c.Conn.PrepareBatch(ctx, q, opts...)
	return b, classify(err)
}

func (c classified) Exec(ctx context.Context, q string, args ...any) error {
	return classify(c.Conn.Exec(ctx, q, args...))
}

func (c classified) Ping(ctx context.Context) error { return classify(c.Conn.Ping(ctx)) }

// rows classifies the errors of a result read block by block: a connection
// that breaks mid-answer ends it with an unavailable error.
type rows struct{ driver.Rows }

func (r rows) Scan(dest ...any) error    { return classify(r.Rows.Scan(dest...)) }
func (r rows) ScanStruct(dest any) error { return classify(r.Rows.ScanStruct(dest)) }
func (r rows) Err() error                { return classify(r.Rows.Err()) }

// row classifies the errors of a one-row answer.
type row struct{ driver.Row }

func (r row) Err() error                { return classify(r.Row.Err()) }
func (r row) Scan(dest ...any) error    { return classify(r.Row.Scan(dest...)) }
func (r row) ScanStruct(dest any) error { return classify(r.Row.ScanStruct(dest)) }
