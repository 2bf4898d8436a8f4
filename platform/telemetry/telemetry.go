// Package telemetry is Vigil's Prometheus metrics and structured logs.
//
// It imports platform/web alone; it must not import an API package or a
// store.
package telemetry

import (
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vigilhq/vigil/platform/web"
)

// NewLogger returns a JSON logger writing to w at level.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// Metrics holds the process's Prometheus registry and the HTTP metrics.
type Metrics struct {
	Registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	limitErrors prometheus.Counter
	deliveries  *prometheus.CounterVec
	exports     *prometheus.CounterVec
	// series keeps each (method, route, status)'s counter and histogram,
	// so that a request finds them without WithLabelValues' hashing and
	// allocations.
	seriesMu sync.RWMutex
	series   map[seriesKey]requestSeries
}

// seriesKey names the series of one kind of request.
type seriesKey struct {
	method, route string
	status        int
}

// requestSeries are the metrics one kind of request adds to.
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// seriesOf returns the series of k, made on first use.
func (m *Metrics) seriesOf(k seriesKey) requestSeries {
	m.seriesMu.RLock()
	s, ok := m.series[k]
	m.seriesMu.RUnlock()
	if ok {
		return s
	}
	s = requestSeries{count: m.requests.WithLabelValues(k.method, k.route, strconv.Itoa(k.status)),
		latency: m.latency.WithLabelValues(k.method, k.route)}
	m.seriesMu.Lock()
	defer m.seriesMu.Unlock()
	if m.series == nil {
		m.series = map[seriesKey]requestSeries{}
	}
	m.series[seriesKey{method: strings.Clone(k.method), route: strings.Clone(k.route), status: k.status}] = s
	return s
}

// NewMetrics returns a registry with Go and process collectors and Vigil's
// HTTP metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_http_requests_total", Help: "HTTP requests by method, route and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vigil_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_rate_limit_rejections_total", Help: "Requests answered 429 by bucket.",
		}, []string{"bucket"}),
		limitErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "vigil_rate_limit_errors_total", Help: "Rate-limit checks that failed on the limits store (the request was let through).",
		}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_alert_deliveries_total", Help: "Attempts to deliver an alert notification, by channel type and outcome (delivered, retrying, failed).",
		}, []string{"channel", "outcome"}),
		exports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_exports_total", Help: "Export jobs run to an end, by outcome (completed, failed, cancelled).",
		}, []string{"outcome"}),
	}
	m.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.latency, m.rateLimited, m.limitErrors, m.deliveries, m.exports)
	return m
}

// BuildInfo exports vigil_build_info{version,go_version} 1.
func (m *Metrics) BuildInfo(version string) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vigil_build_info", Help: "The running binary: its version and Go version (always 1).",
		ConstLabels: prometheus.Labels{"version": version, "go_version": runtime.Version()}})
	g.Set(1)
	m.Registry.MustRegister(g)
}

// DeclareOutcomes exports a zero count of every channel and outcome of
// alert deliveries and of every export outcome, so that alerts on them
// see each series before its first event.
func (m *Metrics) DeclareOutcomes(channels, deliveryOutcomes, exportOutcomes []string) {
	for _, c := range channels {
		for _, o := range deliveryOutcomes {
			m.deliveries.WithLabelValues(c, o)
		}
	}
	for _, o := range exportOutcomes {
		m.exports.WithLabelValues(o)
	}
}

// AlertDelivery counts one attempt to deliver an alert on channel.
func (m *Metrics) AlertDelivery(channel, outcome string) {
	m.deliveries.WithLabelValues(channel, outcome).Inc()
}

// Export counts one export job run to outcome.
func (m *Metrics) Export(outcome string) { m.exports.WithLabelValues(outcome).Inc() }

// DeclareBuckets exports a zero rejection count for each bucket, so that
// dashboards and alerts see every bucket before its first 429.
func (m *Metrics) DeclareBuckets(buckets ...string) {
	for _, b := range buckets {
		m.rateLimited.WithLabelValues(b)
	}
}

// RateLimited counts a 429 of bucket.
func (m *Metrics) RateLimited(bucket string) { m.rateLimited.WithLabelValues(bucket).Inc() }

// LimitError counts a rate-limit check that failed.
func (m *Metrics) LimitError() { m.limitErrors.Inc() }

// Access says who may read /metrics. The zero value lets clients on
// loopback only, so that a server whose address is reachable from
// elsewhere shows its metrics to nobody else until the operator chooses.
type Access struct {
	// Token, when set, must be sent as "Authorization: Bearer <token>"
	// (Prometheus: authorization.credentials_file), from any address.
	Token string
	// Open lets any client read without a token: for a listener of its
	// own, which the network already keeps to the scrapers.
	Open bool
}

// allow answers nil when a client at remote sending authorization may
// read, else the error to answer.
func (a Access) allow(remote net.IP, authorization string) *web.Error {
	if a.Token != "" {
		scheme, token, _ := strings.Cut(authorization, " ")
		// Comparing digests keeps the token's length out of the timing.
		got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(a.Token))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return web.Unauthenticated("send the metrics token (VIGIL_METRICS_TOKEN) as Authorization: Bearer <token>")
		}
		return nil
	}
	if a.Open || remote.IsLoopback() {
		return nil
	}
	return web.NewError(http.StatusForbidden, web.CodeInsufficientPermissions,
		"metrics are served to loopback clients only: set VIGIL_METRICS_TOKEN, or VIGIL_METRICS_ADDR for a listener of their own")
}

// Handler serves the registry in the Prometheus text format to the
// clients access lets in.
func (m *Metrics) Handler(access Access) fiber.Handler {
	h := adaptor.HTTPHandler(promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	return func(c *fiber.Ctx) error {
		if err := access.allow(c.Context().RemoteIP(), c.Get(fiber.HeaderAuthorization)); err != nil {
			if err.Status == http.StatusUnauthorized {
				c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
			}
			return err
		}
		return h(c)
	}
}

// method is the request's method as a string of its own. Fiber's points
// into the connection's buffer, which the next request on it overwrites;
// a label outlives the request, and one that changed under the registry
// would make every later scrape fail.
func method(c *fiber.Ctx) string {
	m := c.Method()
	for _, known := range fiber.DefaultMethods {
		if m == known {
			return known
		}
	}
	return strings.Clone(m)
}

// Middleware records each request's count and latency by route pattern and
// writes one JSON access-log line with its request id: info for
// successes and client errors, error for server errors. The line's
// bytes is the body's length, -1 for a streamed body.
func (m *Metrics) Middleware(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		if err != nil {
			// Render the error now so that the status is known.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				c.Status(fiber.StatusInternalServerError)
			}
		}
		status := c.Response().StatusCode()
		// An unknown path ends in the middleware mounted at "/", which is
		// not an API route; label it so that paths cannot blow up the
		// metric's cardinality.
		route := "unmatched"
		if r := c.Route(); r != nil && r.Path != "/" {
			route = r.Path
		}
		d := time.Since(start)
		// The route is the pattern it was registered with, a string of
		// its own; the method must be copied (method).
		verb := method(c)
		series := m.seriesOf(seriesKey{method: verb, route: route, status: status})
		series.count.Inc()
		series.latency.Observe(d.Seconds())
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		if !log.Enabled(c.UserContext(), level) {
			return nil // the line's arguments would be boxed for nothing
		}
		// A streamed body (an export) is sent after this returns: asking
		// its length would read all of it into memory first.
		bytes := -1
		if !c.Response().IsBodyStream() {
			bytes = len(c.Response().Body())
		}
		log.Log(c.UserContext(), level, "request", "request_id", web.RequestID(c), "method", verb,
			"path", c.Path(), "route", route, "status", status, "duration_ms", float64(d.Microseconds())/1000,
			"bytes", bytes)
		return nil
	}
}
