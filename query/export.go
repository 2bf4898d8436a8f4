package query

import (
	"bufio"
	"context"
	"io"
	"iter"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/query/tabular"
)

// Defaults of the export's API fields.
const (
	defaultMaxExports   = 4
	defaultWriteTimeout = 30 * time.Second
)

// exportFields are the query parameters GET /predictions/export takes.
var exportFields = []string{"model_id", "start_time", "end_time", "format"}

// export answers GET /predictions/export: every matching prediction of
// the caller's, oldest first, with no limit, streamed in the format asked
// for as it is read from the store, so that memory stays constant however
// many there are.
//
// Everything that can fail before the first byte (parameters, the model,
// the store's first answer) answers in the error envelope. Once the body
// has begun, the status is sent: an error then is logged and the
// connection is closed before the body's end, so that the client sees a
// truncated transfer (an unexpected end of the chunked body) rather than a
// short file that looks whole.
func (a *API) export(c *fiber.Ctx) error {
	var v web.Problems
	format, err := outputFormat(c, &v)
	if err != nil {
		return err
	}
	// A misspelt model_id must not widen the export to every model.
	for k := range c.Queries() {
		if !slices.Contains(exportFields, k) {
			v.Add(k, "is not an accepted parameter")
		}
	}
	// Fiber's strings point into the request's buffer, which the next
	// request reuses; the body outlives this one.
	f := analytics.PredictionFilter{OrgID: identity.OrgID(c), ModelID: strings.Clone(c.Query("model_id")), Oldest: true}
	f.Range = timeParams.parse(&v, web.Query(c, "start_time"), web.Query(c, "end_time"))
	v.IDQuery(c, "model_id")
	if err := v.Err(); err != nil {
		return err
	}
	if f.ModelID != "" {
		if err := a.model(c, f.ModelID); err != nil {
			return err
		}
	}
	release, ok := a.exportSlot()
	if !ok {
		return web.Unavailable("too many exports are running; retry shortly", 30*time.Second, nil)
	}
	// The body is written after the handler returns, when the request's
	// context has ended: the read runs on a context of its own, ended
	// when the body is.
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.UserContext()))
	next, stop := iter.Pull2(a.Store.EachPrediction(ctx, f))
	done := func() { stop(); cancel(); release() }
	first, err, more := next()
	if err != nil {
		done()
		return err
	}
	setFormat(c, format, true, f.ModelID)
	s := &stream{log: a.logger().With("request_id", strings.Clone(web.RequestID(c)), "model_id", f.ModelID, "format", format.Name),
		conn: c.Context().Conn(), timeout: a.writeTimeout()}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer done()
		rows := func(yield func(eventlog.Prediction, error) bool) {
			for p, err := first, error(nil); more; p, err, more = next() {
				if !yield(p, err) {
					return
				}
			}
		}
		s.write(w, format, rows)
	})
	return nil
}

// stream is one export's body on its connection.
type stream struct {
	log     *slog.Logger
	conn    net.Conn
	timeout time.Duration
}

// streamBuffer is how much of the body goes out at once.
const streamBuffer = 64 << 10

// write writes the whole body onto w in format. On an error it logs and
// closes the connection, leaving the body unfinished.
func (s *stream) write(w io.Writer, format tabular.Format, rows iter.Seq2[eventlog.Prediction, error]) {
	// Each time a buffer's worth goes out, the connection's write
	// deadline moves on: the server's write timeout bounds how long the
	// client may stall, not how long an export may last.
	var sendErr error
	out := bufio.NewWriterSize(writerFunc(func(p []byte) (int, error) {
		if s.conn != nil {
			_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
		}
		n, err := w.Write(p)
		sendErr = err
		return n, err
	}), streamBuffer)
	n, err := writeAll(format.New(out, tabular.Options{}), rows)
	if err == nil {
		err = out.Flush()
	}
	switch {
	case err == nil:
		return
	case sendErr != nil:
		s.log.Warn("export stopped: the client stopped reading", "rows", n, "err", err)
	default:
		s.log.Error("export failed mid-stream; closing the connection", "rows", n, "err", err)
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

// writerFunc is a function as an io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// exportSlot takes one of the MaxExports slots; false when all are taken.
func (a *API) exportSlot() (release func(), ok bool) {
	a.once.Do(func() {
		n := a.MaxExports
		if n <= 0 {
			n = defaultMaxExports
		}
		a.exports = make(chan struct{}, n)
	})
	select {
	case a.exports <- struct{}{}:
		return func() { <-a.exports }, true
	default:
		return nil, false
	}
}

func (a *API) logger() *slog.Logger {
	if a.Log == nil {
		return slog.Default()
	}
	return a.Log
}

func (a *API) writeTimeout() time.Duration {
	if a.WriteTimeout <= 0 {
		return defaultWriteTimeout
	}
	return a.WriteTimeout
}
